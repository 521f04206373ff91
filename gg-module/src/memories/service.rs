//! An agent's handle on a memory store: the calls, their argument checks,
//! the limits and the refusals. Both execution modes come through here, so
//! a native `create_memory` and `memories.createMemory(...)` cannot differ.

use std::rc::Rc;
use std::sync::atomic::AtomicBool;

use serde::{Deserialize, Serialize};

use super::calls::{offered, Call};
use super::config::{MemoriesConfig, Strategy};
use super::limits;
use super::search::{search, Keywords, SearchHit, SearchRefusal, MAX_KEYWORDS};
use crate::durable::memory_store::{
    char_count, Author, Change, MemoryRecord, MemoryStore, Mutation, RevisionRecord, TxView,
};
use crate::error::{ErrorCode, GgError, GgResult};

/// The most characters either code half may have: what the transpiler
/// accepts of one module (32 768).
pub const MAX_CODE_CHARS: usize = gg_transpiler::MAX_SOURCE_CHARS;

/// What a write, update or create carries.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
pub struct MemoryInput {
    /// The slug: 1-64 of letters, digits, `-`, `_`, `.`.
    pub name: String,
    /// One line; optional only under keyword-search.
    pub description: Option<String>,
    /// The body; must not be blank.
    pub body: String,
    /// A TypeScript module, at most [`MAX_CODE_CHARS`] characters (code mode only).
    pub code: Option<String>,
    /// A TypeScript script run on every use, at most [`MAX_CODE_CHARS`]
    /// characters (code mode only).
    pub on_use: Option<String>,
}

/// What a read returns: never the onUse half.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Memory {
    /// The slug.
    pub name: String,
    /// The one-line description (empty if it has none).
    pub description: String,
    /// The body.
    pub body: String,
    /// The code half, if it has one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub code: Option<String>,
}

/// Whether a write came from a program (may carry code halves) or a native
/// tool call (whose schema has no way to say anything about them).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Origin {
    /// A `gg.memories` call from a program.
    Code,
    /// A native tool call.
    Native,
}

/// One agent's handle on the memory store it bound.
pub struct Memories {
    /// The agent's memories capability.
    pub config: MemoriesConfig,
    /// The store it bound, shared with any other holder.
    pub store: MemoryStore,
    /// The holding agent instance's id, recorded on every revision it makes.
    pub agent: String,
    /// Whether this agent may write; false for a read-only holder.
    pub writable: bool,
    /// The program running now, recorded on every revision it makes
    /// (`None` between programs and in tool-calling mode).
    pub program: Option<String>,
    /// The folded text of the current set, by the store head it reflects.
    folded: std::cell::RefCell<Option<(i64, Rc<Vec<super::search::Folded>>)>>,
}

/// An ended instance leaves the store's attached holders (its watermark
/// stays), so later joins no longer rewrite its modules file.
impl Drop for Memories {
    fn drop(&mut self) {
        if let Err(e) = self.store.leave(&self.agent) {
            tracing::warn!(
                "agent {} could not leave the memory store {}: {}",
                self.agent,
                self.store.id(),
                e.message
            );
        }
    }
}

/// Checks a change to `slug` that another process decided (a worker that
/// keeps no store) as this service would have before deciding it: the
/// name, a one-line description, a body, code halves within
/// [`MAX_CODE_CHARS`], the store's limits, and a mutation that matches
/// what the store holds (a create of a name not held, an update, edit or
/// delete of one held). Run inside the mutation's transaction.
pub fn check_decided(
    config: &MemoriesConfig,
    view: &TxView<'_>,
    slug: &str,
    change: &Change,
) -> GgResult<()> {
    check_slug(slug)?;
    let old = view.get(slug)?;
    let Change::Put {
        mutation,
        description,
        body,
        code,
        on_use,
    } = change
    else {
        return match old {
            Some(_) => Ok(()),
            None => Err(GgError::not_found(format!(
                "no memory is named {:?}.",
                crate::Quoted(slug)
            ))),
        };
    };
    let held = old.is_some();
    let fits = match mutation {
        Mutation::Write | Mutation::Create => !held,
        Mutation::Update | Mutation::Edit => held,
        Mutation::Delete => false,
    };
    if !fits {
        return Err(GgError::invalid(format!(
            "a {} of {:?} does not fit what the store holds.",
            mutation.as_str(),
            crate::Quoted(slug)
        )));
    }
    if description.contains('\n') {
        return Err(GgError::invalid("a description is one line."));
    }
    if body.trim().is_empty() {
        return Err(GgError::invalid("a memory needs a body."));
    }
    for text in [code, on_use].into_iter().flatten() {
        if text.chars().count() > MAX_CODE_CHARS {
            return Err(GgError::limit(format!(
                "a code half is over the {MAX_CODE_CHARS}-character limit."
            )));
        }
    }
    limits::check(config, view, slug, description, body, old.as_ref())
}

/// A slug: 1–64 of letters, digits, `-`, `_`, `.`.
pub fn check_slug(slug: &str) -> GgResult<()> {
    let slug_q = crate::Quoted(slug);
    let len = slug.chars().count();
    if len == 0 {
        return Err(GgError::invalid(
            "a memory needs a name: 1-64 letters, digits, '-', '_' or '.'.",
        ));
    }
    if len > 64 {
        return Err(GgError::invalid(format!(
            "the name {slug_q:?} is {len} characters; a name is at most 64 letters, digits, '-', '_' or '.'."
        )));
    }
    if let Some(bad) = slug
        .chars()
        .find(|c| !(c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.')))
    {
        return Err(GgError::invalid(format!(
            "the name {slug_q:?} contains {bad:?}; a name uses only letters, digits, '-', '_' and '.' (e.g. \"deploy-runbook\")."
        )));
    }
    Ok(())
}

impl Memories {
    /// `agent`'s handle on `store`, organized as `config` says.
    pub fn new(config: MemoriesConfig, store: MemoryStore, agent: &str, writable: bool) -> Self {
        Memories {
            config,
            store,
            agent: agent.to_string(),
            writable,
            program: None,
            folded: Default::default(),
        }
    }

    /// The memory strategy the agent works in.
    pub fn strategy(&self) -> Strategy {
        self.config.strategy
    }

    /// The calls this agent has.
    pub fn offered(&self) -> Vec<Call> {
        offered(self.config.strategy, self.config.revise, self.writable)
    }

    /// Refuses a call this agent does not have, naming the calls it does.
    pub fn require(&self, call: Call, spell: fn(Call) -> &'static str) -> GgResult<()> {
        let offered = self.offered();
        if offered.contains(&call) {
            return Ok(());
        }
        let have = if offered.is_empty() {
            "no memory calls".to_string()
        } else {
            offered
                .iter()
                .map(|c| spell(*c))
                .collect::<Vec<_>>()
                .join(", ")
        };
        let name = spell(call);
        if !self.writable && call.writes() {
            return Err(GgError::new(
                ErrorCode::ReadOnly,
                format!("{name} is refused: these memories are another agent's and you hold them read-only. Your memory calls: {have}."),
            ));
        }
        let why = if call.revises()
            && !self.config.revise
            && super::calls::strategy_calls(self.config.strategy).contains(&call)
        {
            "memories are append-only here (Revise memories is off)".to_string()
        } else {
            format!(
                "the {} strategy does not offer it",
                self.config.strategy.name()
            )
        };
        Err(GgError::unavailable(format!(
            "{name} is unavailable: {why}. Your memory calls: {have}."
        )))
    }

    fn existing(&self, slug: &str, call: &str) -> GgResult<MemoryRecord> {
        let slug_q = crate::Quoted(slug);
        self.store.get(slug)?.ok_or_else(|| {
            let names: Vec<String> = self
                .store
                .list()
                .map(|l| l.iter().take(20).map(|m| format!("{:?}", m.slug)).collect())
                .unwrap_or_default();
            let listing = if names.is_empty() {
                "there are no memories yet".to_string()
            } else {
                format!("memories: {}", names.join(", "))
            };
            GgError::not_found(format!(
                "{call}: no memory is named {slug_q:?} ({listing})."
            ))
        })
    }

    fn check_input(&self, input: &MemoryInput, origin: Origin, call: &str) -> GgResult<String> {
        check_slug(&input.name)?;
        let description = match (&input.description, self.config.strategy) {
            (Some(d), _) => d.clone(),
            (None, Strategy::KeywordSearch) => String::new(),
            (None, strategy) => {
                return Err(GgError::invalid(format!(
                    "{call}: a description is required under the {} strategy: one line saying what the memory holds.",
                    strategy.name()
                )))
            }
        };
        if description.contains('\n') {
            return Err(GgError::invalid(format!(
                "{call}: the description must be one line; move the detail into the body."
            )));
        }
        if input.body.trim().is_empty() {
            return Err(GgError::invalid(format!(
                "{call}: the body of {:?} is empty; a memory needs a body.",
                input.name
            )));
        }
        if origin == Origin::Code {
            for (half, text) in [("code", &input.code), ("onUse", &input.on_use)] {
                if let Some(text) = text {
                    let n = text.chars().count();
                    if n > MAX_CODE_CHARS {
                        return Err(GgError::limit(format!(
                            "limit exceeded: the {half} of {:?} is {n} characters, over the {MAX_CODE_CHARS}-character limit by {}. Shorten it, or split the helpers across memories; nothing was stored.",
                            input.name,
                            n - MAX_CODE_CHARS
                        )));
                    }
                }
            }
        }
        Ok(description)
    }

    /// scratchpad `write_memory`, or markdown/keyword-search `create_memory`:
    /// a new memory.
    pub fn create(
        &mut self,
        call: Call,
        input: MemoryInput,
        origin: Origin,
    ) -> GgResult<RevisionRecord> {
        let name = match origin {
            Origin::Code => call.module_name(),
            Origin::Native => call.tool_name(),
        };
        let description = self.check_input(&input, origin, name)?;
        let config = self.config;
        let slug = input.name.clone();
        let slug_q = crate::Quoted(&slug);
        let update_call = match (config.strategy, config.revise) {
            (Strategy::Scratchpad, true) => Some(Call::Update),
            (_, true) => Some(Call::Edit),
            _ => None,
        }
        .map(|c| {
            if origin == Origin::Code {
                c.module_name()
            } else {
                c.tool_name()
            }
        });
        let (code, on_use) = match origin {
            Origin::Code => (input.code, input.on_use),
            Origin::Native => (None, None),
        };
        let mutation = if call == Call::Write {
            Mutation::Write
        } else {
            Mutation::Create
        };
        self.store.mutate(Author { agent: &self.agent, program: self.program.as_deref() }, &slug, |view| {
            if view.get(&slug)?.is_some() {
                return Err(GgError::invalid(match update_call {
                    Some(update) => format!("{name}: a memory named {slug_q:?} already exists. Change it with {update}, or delete it first."),
                    None => format!("{name}: a memory named {slug_q:?} already exists, and memories are append-only here; choose another name."),
                }));
            }
            limits::check(&config, view, &slug, &description, &input.body, None)?;
            Ok(Change::Put { mutation, description: description.clone(), body: input.body.clone(), code: code.clone(), on_use: on_use.clone() })
        })
    }

    /// scratchpad `update_memory`: replaces description and body, and in
    /// code mode both code halves (an omitted half is cleared).
    pub fn update(&mut self, input: MemoryInput, origin: Origin) -> GgResult<RevisionRecord> {
        let name = match origin {
            Origin::Code => "updateMemory",
            Origin::Native => "update_memory",
        };
        let description = self.check_input(&input, origin, name)?;
        let config = self.config;
        let slug = input.name.clone();
        let slug_q = crate::Quoted(&slug);
        self.existing(&slug, name)?;
        self.store.mutate(
            Author {
                agent: &self.agent,
                program: self.program.as_deref(),
            },
            &slug,
            |view| {
                let Some(old) = view.get(&slug)? else {
                    return Err(GgError::not_found(format!(
                        "{name}: no memory is named {slug_q:?}."
                    )));
                };
                limits::check(&config, view, &slug, &description, &input.body, Some(&old))?;
                let (code, on_use) = match origin {
                    Origin::Code => (input.code.clone(), input.on_use.clone()),
                    Origin::Native => (old.code, old.on_use),
                };
                Ok(Change::Put {
                    mutation: Mutation::Update,
                    description: description.clone(),
                    body: input.body.clone(),
                    code,
                    on_use,
                })
            },
        )
    }

    /// `read_memory`.
    pub fn read(&self, slug: &str, call: &str) -> GgResult<Memory> {
        check_slug(slug)?;
        let m = self.existing(slug, call)?;
        Ok(Memory {
            name: m.slug,
            description: m.description,
            body: m.body,
            code: m.code,
        })
    }

    /// The stored record, code halves included (for loading code).
    pub fn record(&self, slug: &str) -> GgResult<Option<MemoryRecord>> {
        self.store.get(slug)
    }

    /// `edit_memory`: search/replace on the body; the quoted text must
    /// occur exactly once.
    pub fn edit(
        &mut self,
        slug: &str,
        old_string: &str,
        new_string: &str,
        call: &str,
    ) -> GgResult<RevisionRecord> {
        check_slug(slug)?;
        if old_string.is_empty() {
            return Err(GgError::invalid(format!(
                "{call}: oldString is empty; quote the exact text you are changing (to append, quote the last line and replace it with itself plus the addition)."
            )));
        }
        self.existing(slug, call)?;
        let config = self.config;
        let slug_owned = slug.to_string();
        self.store.mutate(Author { agent: &self.agent, program: self.program.as_deref() }, slug, |view| {
            let Some(old) = view.get(&slug_owned)? else {
                return Err(GgError::not_found(format!("{call}: no memory is named {slug_owned:?}.")));
            };
            let count = old.body.matches(old_string).count();
            if count != 1 {
                let why = if count == 0 {
                    "does not occur in it".to_string()
                } else {
                    format!("occurs {count} times in it")
                };
                return Err(GgError::invalid(format!(
                    "{call}: the text to replace {why}; it must occur exactly once. Quote more of the surrounding text so it is unique (read the memory first if unsure)."
                )));
            }
            let body = old.body.replacen(old_string, new_string, 1);
            if body.trim().is_empty() {
                return Err(GgError::invalid(format!(
                    "{call}: this edit would leave {slug_owned:?} empty; delete it with delete_memory instead."
                )));
            }
            limits::check(&config, view, &slug_owned, &old.description, &body, Some(&old))?;
            Ok(Change::Put { mutation: Mutation::Edit, description: old.description, body, code: old.code, on_use: old.on_use })
        })
    }

    /// `delete_memory`.
    pub fn delete(&mut self, slug: &str, call: &str) -> GgResult<RevisionRecord> {
        check_slug(slug)?;
        self.existing(slug, call)?;
        let slug_owned = slug.to_string();
        self.store.mutate(
            Author {
                agent: &self.agent,
                program: self.program.as_deref(),
            },
            slug,
            |view| {
                if view.get(&slug_owned)?.is_none() {
                    return Err(GgError::not_found(format!(
                        "{call}: no memory is named {slug_owned:?}."
                    )));
                }
                Ok(Change::Delete)
            },
        )
    }

    /// `search_memories`. It gives up, refused, when `stop` is set while
    /// it runs (the program that asked is being stopped).
    pub fn search(
        &self,
        keywords: &[String],
        call: &str,
        stop: &AtomicBool,
    ) -> GgResult<Vec<SearchHit>> {
        if keywords.iter().all(|k| k.trim().is_empty()) {
            return Err(GgError::invalid(format!(
                "{call}: give at least one non-empty keyword, e.g. [\"deploy\", \"staging\"]."
            )));
        }
        let keywords = Keywords::of(keywords).map_err(|refusal| search_refused(call, refusal))?;
        let head = self.store.head()?;
        let set = self.store.list()?;
        let cached = self.folded.borrow_mut().take();
        let folded = match cached {
            Some((at, folded)) if at == head && folded.len() == set.len() => folded,
            Some((at, folded)) => match self.store.changed_since(at, head)? {
                Some(changed) => {
                    let before = Rc::try_unwrap(folded).unwrap_or_else(|shared| (*shared).clone());
                    Rc::new(super::search::refold(&set, before, &changed))
                }
                None => Rc::new(super::search::fold_all(&set)),
            },
            None => Rc::new(super::search::fold_all(&set)),
        };
        *self.folded.borrow_mut() = Some((head, folded.clone()));
        search(
            &set,
            &folded,
            &keywords,
            self.config.limits.max_results,
            stop,
        )
        .map_err(|refusal| search_refused(call, refusal))
    }

    /// Body characters of a memory (for callers composing notices).
    pub fn chars_of(body: &str) -> u64 {
        char_count(body)
    }
}

/// The error a search's refusal is to the caller named `call`.
fn search_refused(call: &str, refusal: SearchRefusal) -> GgError {
    match refusal {
        SearchRefusal::TooManyKeywords { distinct } => GgError::invalid(format!(
            "{call} takes at most {MAX_KEYWORDS} distinct keywords, got {distinct}; search with the words that matter most, or split them over several searches."
        )),
        SearchRefusal::Stopped => GgError::limit(format!(
            "{call} was stopped before it finished: the program it ran for reached its time or heap limit."
        )),
    }
}
