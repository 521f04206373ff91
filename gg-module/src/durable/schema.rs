//! The one definition of what gg stores, for the writers (the memory
//! stores, the agent state) and for the read-only inspector, which reads
//! the same tables. A change here is a migration: SQLite schemas only ever
//! gain `IF NOT EXISTS` tables; PostgreSQL's gain a numbered migration.

/// One memory store's SQLite database (`stores/<id>.sqlite`): the current
/// set, the append-only revision log, per-slug revision counters, running
/// totals and peaks, the agents holding the store, and the import key each
/// slug that ever held code was given.
pub const MEMORY_STORE: &str = "
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS memories (
    slug TEXT PRIMARY KEY,
    description TEXT NOT NULL,
    body TEXT NOT NULL,
    code TEXT,
    on_use TEXT,
    chars INTEGER NOT NULL,
    lines INTEGER NOT NULL,
    index_chars INTEGER NOT NULL,
    seq INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS revisions (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    slug TEXT NOT NULL,
    revision INTEGER NOT NULL,
    mutation TEXT NOT NULL,
    description TEXT NOT NULL,
    body TEXT NOT NULL,
    agent TEXT NOT NULL,
    at_ms INTEGER NOT NULL,
    program TEXT
);
CREATE TABLE IF NOT EXISTS slug_counters (slug TEXT PRIMARY KEY, last INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS stats (
    id INTEGER PRIMARY KEY CHECK (id = 1),
    count INTEGER NOT NULL, chars INTEGER NOT NULL, lines INTEGER NOT NULL, index_chars INTEGER NOT NULL,
    peak_count INTEGER NOT NULL, peak_chars INTEGER NOT NULL, peak_lines INTEGER NOT NULL
);
INSERT OR IGNORE INTO stats VALUES (1, 0, 0, 0, 0, 0, 0, 0);
CREATE TABLE IF NOT EXISTS holders (
    holder TEXT PRIMARY KEY,
    watermark INTEGER NOT NULL,
    scope TEXT NOT NULL,
    writable INTEGER NOT NULL,
    attached INTEGER NOT NULL DEFAULT 0
);
CREATE TABLE IF NOT EXISTS module_keys (slug TEXT PRIMARY KEY, key TEXT NOT NULL UNIQUE);
";

/// Brings a memory store made before holders recorded whether an instance
/// holds them now (`attached`) up to [`MEMORY_STORE`]; run when the column
/// is missing.
pub const MEMORY_STORE_ATTACHED: &str =
    "ALTER TABLE holders ADD COLUMN attached INTEGER NOT NULL DEFAULT 0";

/// Brings a memory store made before revisions named the program that
/// made them up to [`MEMORY_STORE`]; run when the column is missing.
pub const MEMORY_STORE_PROGRAM: &str = "ALTER TABLE revisions ADD COLUMN program TEXT";

/// The state folder's SQLite database (`state.sqlite`): each agent's record
/// (window, turn counter, program library), its programs, and persistent
/// profiles' desks.
pub const AGENT_STATE: &str = "
CREATE TABLE IF NOT EXISTS agents (
    id TEXT PRIMARY KEY,
    profile_id TEXT NOT NULL,
    turn INTEGER NOT NULL,
    next_program INTEGER NOT NULL,
    window TEXT NOT NULL,
    loaded TEXT NOT NULL DEFAULT '[]'
);
CREATE TABLE IF NOT EXISTS desks (
    profile_id TEXT PRIMARY KEY,
    desk TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS programs (
    agent_id TEXT NOT NULL,
    program_id TEXT NOT NULL,
    turn INTEGER NOT NULL,
    source TEXT NOT NULL,
    opening INTEGER NOT NULL,
    PRIMARY KEY (agent_id, program_id)
);
CREATE TABLE IF NOT EXISTS window_items (
    agent_id TEXT NOT NULL,
    position INTEGER NOT NULL,
    item TEXT NOT NULL,
    PRIMARY KEY (agent_id, position)
);
CREATE TABLE IF NOT EXISTS turns_in_flight (
    agent_id TEXT PRIMARY KEY,
    turn INTEGER NOT NULL,
    program_id TEXT,
    source TEXT,
    store_head INTEGER,
    started_ms INTEGER NOT NULL
);
";

/// PostgreSQL's schema (memory stores and agent state in one database),
/// as migrations in order; a migration is never edited once
/// released, only followed by another.
pub const POSTGRES_MIGRATIONS: &[(i32, &str)] = &[
    (
        1,
        "
CREATE TABLE gg_stores (
    store_id TEXT PRIMARY KEY,
    head BIGINT NOT NULL DEFAULT 0,
    count BIGINT NOT NULL DEFAULT 0,
    chars BIGINT NOT NULL DEFAULT 0,
    lines BIGINT NOT NULL DEFAULT 0,
    index_chars BIGINT NOT NULL DEFAULT 0,
    peak_count BIGINT NOT NULL DEFAULT 0,
    peak_chars BIGINT NOT NULL DEFAULT 0,
    peak_lines BIGINT NOT NULL DEFAULT 0
);
CREATE TABLE gg_memories (
    store_id TEXT NOT NULL,
    slug TEXT NOT NULL,
    description TEXT NOT NULL,
    body TEXT NOT NULL,
    code TEXT,
    on_use TEXT,
    chars BIGINT NOT NULL,
    lines BIGINT NOT NULL,
    index_chars BIGINT NOT NULL,
    seq BIGINT NOT NULL,
    PRIMARY KEY (store_id, slug)
);
CREATE TABLE gg_revisions (
    store_id TEXT NOT NULL,
    seq BIGINT NOT NULL,
    slug TEXT NOT NULL,
    revision BIGINT NOT NULL,
    mutation TEXT NOT NULL,
    description TEXT NOT NULL,
    body TEXT NOT NULL,
    agent TEXT NOT NULL,
    at_ms BIGINT NOT NULL,
    PRIMARY KEY (store_id, seq)
);
CREATE TABLE gg_slug_counters (
    store_id TEXT NOT NULL,
    slug TEXT NOT NULL,
    last BIGINT NOT NULL,
    PRIMARY KEY (store_id, slug)
);
CREATE TABLE gg_holders (
    store_id TEXT NOT NULL,
    holder TEXT NOT NULL,
    watermark BIGINT NOT NULL,
    scope TEXT NOT NULL,
    writable BOOLEAN NOT NULL,
    PRIMARY KEY (store_id, holder)
);
CREATE TABLE gg_agents (
    id TEXT PRIMARY KEY,
    profile_id TEXT NOT NULL,
    turn BIGINT NOT NULL,
    next_program BIGINT NOT NULL,
    window_json TEXT NOT NULL,
    loaded TEXT NOT NULL DEFAULT '[]'
);
CREATE TABLE gg_desks (profile_id TEXT PRIMARY KEY, desk TEXT NOT NULL);
CREATE TABLE gg_programs (
    agent_id TEXT NOT NULL,
    program_id TEXT NOT NULL,
    turn BIGINT NOT NULL,
    source TEXT NOT NULL,
    opening BOOLEAN NOT NULL,
    PRIMARY KEY (agent_id, program_id)
);
",
    ),
    (
        2,
        // Whether a live agent instance holds the store now: joins rewrite
        // the modules files of attached holders only, so their cost does not
        // grow with every holder the store ever had.
        "ALTER TABLE gg_holders ADD COLUMN attached BOOLEAN NOT NULL DEFAULT false;",
    ),
    (
        3,
        // A window is a header and one row per thread item, so a turn
        // writes what it appended, not the whole thread; a turn is
        // recorded as in flight before its program runs; a revision
        // names the program that made it.
        "
CREATE TABLE gg_window_items (
    agent_id TEXT NOT NULL,
    position BIGINT NOT NULL,
    item TEXT NOT NULL,
    PRIMARY KEY (agent_id, position)
);
CREATE TABLE gg_turns_in_flight (
    agent_id TEXT PRIMARY KEY,
    turn BIGINT NOT NULL,
    program_id TEXT,
    source TEXT,
    store_head BIGINT,
    started_ms BIGINT NOT NULL
);
ALTER TABLE gg_revisions ADD COLUMN program TEXT;
",
    ),
    (
        4,
        // The import key of each slug that ever held code, assigned once
        // and never handed to another slug, so every holder and every
        // process imports a memory by the same name.
        "
CREATE TABLE gg_module_keys (
    store_id TEXT NOT NULL,
    slug TEXT NOT NULL,
    key TEXT NOT NULL,
    PRIMARY KEY (store_id, slug),
    UNIQUE (store_id, key)
);
",
    ),
];
