//! Closed windows and the per-repo, per-kind baselines learned from them (R8).
//!
//! Only windows closed by a real boundary and not contaminated count as samples: a window
//! the backstop closed measures the backstop, not the work.

use std::collections::BTreeMap;

use rusqlite::{params, OptionalExtension};
use serde::{Deserialize, Serialize};

use super::{Store, StoreError, Txn, HEADER_BASELINES};

/// What closed a window: the engine's own, stored by name. Only `boundary` windows are
/// learned from.
pub use crate::engine::ClosedBy;

/// One closed window.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct WindowRow {
    pub repo: String,
    pub kind: String,
    pub session: String,
    pub actions: i64,
    pub secs: i64,
    pub closed_by: ClosedBy,
    /// Something unusual happened inside (a fault, a reset, an override): not a clean sample.
    pub contaminated: bool,
    pub closed_ms: i64,
}

/// A learned baseline for one repo and work kind.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct BaselineRow {
    pub repo: String,
    pub kind: String,
    pub actions: i64,
    pub secs: i64,
    pub samples: i64,
    pub updated_ms: i64,
}

fn window_from_sql(r: &rusqlite::Row<'_>) -> rusqlite::Result<WindowRow> {
    let closed_by: String = r.get(5)?;
    Ok(WindowRow {
        repo: r.get(0)?,
        kind: r.get(1)?,
        session: r.get(2)?,
        actions: r.get(3)?,
        secs: r.get(4)?,
        closed_by: ClosedBy::parse(&closed_by).ok_or_else(|| {
            rusqlite::Error::FromSqlConversionFailure(
                5,
                rusqlite::types::Type::Text,
                format!("unknown closed_by `{closed_by}`").into(),
            )
        })?,
        contaminated: r.get::<_, i64>(6)? != 0,
        closed_ms: r.get(7)?,
    })
}

fn baseline_from_sql(r: &rusqlite::Row<'_>) -> rusqlite::Result<BaselineRow> {
    Ok(BaselineRow {
        repo: r.get(0)?,
        kind: r.get(1)?,
        actions: r.get(2)?,
        secs: r.get(3)?,
        samples: r.get(4)?,
        updated_ms: r.get(5)?,
    })
}

const SELECT_WINDOW: &str =
    "SELECT repo, kind, session, actions, secs, closed_by, contaminated, closed FROM windows";
const SELECT_BASELINE: &str = "SELECT repo, kind, actions, secs, samples, updated FROM baselines";

const INSERT_WINDOW: &str =
    "INSERT INTO windows (repo, kind, session, actions, secs, closed_by, contaminated, closed)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)";

/// The values of [`INSERT_WINDOW`].
macro_rules! window_params {
    ($w:expr) => {
        params![
            $w.repo,
            $w.kind,
            $w.session,
            $w.actions,
            $w.secs,
            $w.closed_by.as_str(),
            i64::from($w.contaminated),
            $w.closed_ms
        ]
    };
}

impl Txn<'_> {
    /// The learned baseline for a repo and kind, if any. The driver asks once per work kind,
    /// so the first call reads all of the repo's baselines in one statement and the others are
    /// answered from that (until [`Txn::save_baseline`] changes the table).
    pub fn baseline(&self, repo: &str, kind: &str) -> Result<Option<BaselineRow>, StoreError> {
        // Until `gate calibrate` writes the first one there are none (see `HEADER_BASELINES`).
        if !self.header_says(HEADER_BASELINES)? {
            return Ok(None);
        }
        let mut cache = self.baselines.borrow_mut();
        if cache.as_ref().is_none_or(|(r, _)| r != repo) {
            let rows = self
                .tx
                .prepare_cached(&format!("{SELECT_BASELINE} WHERE repo = ?1"))?
                .query_map([repo], baseline_from_sql)?
                .collect::<Result<Vec<_>, _>>()?;
            *cache = Some((repo.to_string(), rows));
        }
        Ok(cache
            .as_ref()
            .and_then(|(_, rows)| rows.iter().find(|b| b.kind == kind).cloned()))
    }

    /// Records a closed window.
    pub fn record_window(&self, w: &WindowRow) -> Result<(), StoreError> {
        // Not cached: a hook closes at most one window and exits, and caching the statement
        // costs it more than parsing it once.
        self.tx.execute(INSERT_WINDOW, window_params!(w))?;
        Ok(())
    }

    /// [`Txn::record_window`] with the statement cached, for a connection that records
    /// windows by the thousand (a stored replay, where parsing it each time cost 4 %).
    pub(crate) fn record_window_cached(&self, w: &WindowRow) -> Result<(), StoreError> {
        self.tx
            .prepare_cached(INSERT_WINDOW)?
            .execute(window_params!(w))?;
        Ok(())
    }

    /// Stores (replaces) a baseline.
    pub fn save_baseline(&self, b: &BaselineRow) -> Result<(), StoreError> {
        self.baselines.borrow_mut().take();
        self.set_header_flag(HEADER_BASELINES, true)?;
        self.tx.execute(
            "INSERT INTO baselines (repo, kind, actions, secs, samples, updated)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6)
             ON CONFLICT (repo, kind) DO UPDATE SET actions = ?3, secs = ?4, samples = ?5, updated = ?6",
            params![b.repo, b.kind, b.actions, b.secs, b.samples, b.updated_ms],
        )?;
        Ok(())
    }
}

/// The store's record of the last calibration: a `state` row under spec `` (a key no machine
/// state can have), its blob the id of the last window that calibration saw.
const CALIBRATED_SCOPE: &str = "calibrated";

/// The id of the last window the last calibration saw (0 before the first).
fn calibrated_through(conn: &rusqlite::Connection) -> Result<i64, StoreError> {
    let blob: Option<Vec<u8>> = conn
        .query_row(
            "SELECT blob FROM state WHERE scope = ?1 AND spec = ''",
            [CALIBRATED_SCOPE],
            |r| r.get(0),
        )
        .optional()?;
    Ok(blob
        .and_then(|b| String::from_utf8(b).ok())
        .and_then(|s| s.parse().ok())
        .unwrap_or(0))
}

/// The nearest-rank percentile (`pct` in 1..=100) of a sorted, non-empty slice.
fn percentile(sorted: &[i64], pct: u32) -> i64 {
    let pct = pct.clamp(1, 100) as usize;
    let rank = (pct * sorted.len()).div_ceil(100).max(1);
    sorted[rank - 1]
}

impl Store {
    /// Closed windows, oldest first; `clean_only` keeps the boundary-closed, uncontaminated
    /// samples that calibration uses.
    pub fn windows(
        &self,
        repo: Option<&str>,
        kind: Option<&str>,
        clean_only: bool,
    ) -> Result<Vec<WindowRow>, StoreError> {
        let mut stmt = self.conn.prepare(&format!(
            "{SELECT_WINDOW} WHERE (?1 IS NULL OR repo = ?1) AND (?2 IS NULL OR kind = ?2)
             AND (?3 = 0 OR (closed_by = 'boundary' AND contaminated = 0)) ORDER BY id"
        ))?;
        let rows = stmt.query_map(params![repo, kind, i64::from(clean_only)], window_from_sql)?;
        Ok(rows.collect::<Result<_, _>>()?)
    }

    /// All baselines, ordered by repo and kind.
    pub fn baselines(&self) -> Result<Vec<BaselineRow>, StoreError> {
        let mut stmt = self
            .conn
            .prepare(&format!("{SELECT_BASELINE} ORDER BY repo, kind"))?;
        let rows = stmt.query_map([], baseline_from_sql)?;
        Ok(rows.collect::<Result<_, _>>()?)
    }

    /// Whether at least `every` clean windows (closed by a boundary, uncontaminated) were
    /// stored since the last calibration: the hook then starts one in the background. Reads
    /// only the windows after the last one calibration saw (a rowid range).
    pub fn calibration_due(&self, every: usize) -> Result<bool, StoreError> {
        let mark = calibrated_through(&self.conn)?;
        let n: i64 = self.conn.query_row(
            "SELECT COUNT(*) FROM (SELECT 1 FROM windows WHERE id > ?1
               AND closed_by = 'boundary' AND contaminated = 0 LIMIT ?2)",
            params![mark, every.max(1) as i64],
            |r| r.get(0),
        )?;
        Ok(n as usize >= every.max(1))
    }

    /// Learns baselines from clean windows: for every repo and kind with at least
    /// `min_samples` of them, the `pct`-th percentile of actions and of seconds. Returns the
    /// baselines written (ordered by repo and kind); groups with too few samples are left
    /// untouched.
    pub fn calibrate(
        &mut self,
        min_samples: usize,
        pct: u32,
        now_ms: i64,
    ) -> Result<Vec<BaselineRow>, StoreError> {
        // Every window up to here is seen by this calibration (later ones may be too).
        let through: i64 =
            self.conn
                .query_row("SELECT COALESCE(MAX(id), 0) FROM windows", [], |r| r.get(0))?;
        let mut groups: BTreeMap<(String, String), (Vec<i64>, Vec<i64>)> = BTreeMap::new();
        for w in self.windows(None, None, true)? {
            let g = groups.entry((w.repo, w.kind)).or_default();
            g.0.push(w.actions);
            g.1.push(w.secs);
        }
        let mut out = Vec::new();
        for ((repo, kind), (mut actions, mut secs)) in groups {
            if actions.len() < min_samples.max(1) {
                continue;
            }
            actions.sort_unstable();
            secs.sort_unstable();
            out.push(BaselineRow {
                repo,
                kind,
                actions: percentile(&actions, pct),
                secs: percentile(&secs, pct),
                samples: actions.len() as i64,
                updated_ms: now_ms,
            });
        }
        self.transaction(|t| {
            out.iter().try_for_each(|b| t.save_baseline(b))?;
            t.tx.execute(
                "INSERT INTO state (scope, spec, spec_hash, blob, updated)
                 VALUES (?1, '', '', CAST(?2 AS BLOB), ?3)
                 ON CONFLICT (scope, spec) DO UPDATE SET blob = CAST(?2 AS BLOB), updated = ?3",
                params![CALIBRATED_SCOPE, through.to_string(), now_ms],
            )?;
            Ok(())
        })?;
        Ok(out)
    }
}
