//! [`Mutation`]: what the revision log calls one change, and how both
//! backends store it.

use serde::{Deserialize, Serialize};

/// What the revision log calls one mutation: the call that made it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Mutation {
    /// A scratchpad `writeMemory`: a new memory.
    Write,
    /// `createMemory`: a new memory.
    Create,
    /// A scratchpad `updateMemory`: a whole new version.
    Update,
    /// `editMemory`: one search/replace.
    Edit,
    /// `deleteMemory`.
    Delete,
}

impl Mutation {
    /// The name the store and the events use (`create`, `edit`, …).
    pub fn as_str(self) -> &'static str {
        match self {
            Mutation::Write => "write",
            Mutation::Create => "create",
            Mutation::Update => "update",
            Mutation::Edit => "edit",
            Mutation::Delete => "delete",
        }
    }

    /// The name a native call's reply uses (`created`, `edited`, …).
    pub fn past_tense(self) -> &'static str {
        match self {
            Mutation::Write => "wrote",
            Mutation::Create => "created",
            Mutation::Update => "updated",
            Mutation::Edit => "edited",
            Mutation::Delete => "deleted",
        }
    }

    /// Whether the memory did not exist before this mutation.
    pub fn makes_new(self) -> bool {
        matches!(self, Mutation::Write | Mutation::Create)
    }

    /// Reads a stored name; `None` for one gg never writes.
    pub fn parse(name: &str) -> Option<Mutation> {
        Some(match name {
            "write" => Mutation::Write,
            "create" => Mutation::Create,
            "update" => Mutation::Update,
            "edit" => Mutation::Edit,
            "delete" => Mutation::Delete,
            _ => return None,
        })
    }
}

impl rusqlite::types::ToSql for Mutation {
    fn to_sql(&self) -> rusqlite::Result<rusqlite::types::ToSqlOutput<'_>> {
        Ok(self.as_str().into())
    }
}

impl rusqlite::types::FromSql for Mutation {
    fn column_result(value: rusqlite::types::ValueRef<'_>) -> rusqlite::types::FromSqlResult<Self> {
        let name = value.as_str()?;
        Mutation::parse(name).ok_or_else(|| {
            rusqlite::types::FromSqlError::Other(
                format!("unknown mutation {name:?} in the revision log").into(),
            )
        })
    }
}

impl postgres::types::ToSql for Mutation {
    fn to_sql(
        &self,
        ty: &postgres::types::Type,
        out: &mut postgres::types::private::BytesMut,
    ) -> Result<postgres::types::IsNull, Box<dyn std::error::Error + Sync + Send>> {
        self.as_str().to_sql(ty, out)
    }

    fn accepts(ty: &postgres::types::Type) -> bool {
        <&str as postgres::types::ToSql>::accepts(ty)
    }

    postgres::types::to_sql_checked!();
}

impl<'a> postgres::types::FromSql<'a> for Mutation {
    fn from_sql(
        ty: &postgres::types::Type,
        raw: &'a [u8],
    ) -> Result<Self, Box<dyn std::error::Error + Sync + Send>> {
        let name = <&str as postgres::types::FromSql>::from_sql(ty, raw)?;
        Mutation::parse(name)
            .ok_or_else(|| format!("unknown mutation {name:?} in the revision log").into())
    }

    fn accepts(ty: &postgres::types::Type) -> bool {
        <&str as postgres::types::FromSql>::accepts(ty)
    }
}

impl std::fmt::Display for Mutation {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}
