//! The bench's one table: a row, gg's number, and the peers' numbers beside it.

use std::time::Duration;

#[derive(Default)]
pub struct Table {
    rows: Vec<(String, String, String)>,
}

impl Table {
    pub fn row(&mut self, what: impl Into<String>, gg: impl Into<String>, peers: Vec<String>) {
        let peers = if peers.is_empty() {
            "–".to_string()
        } else {
            peers.join("; ")
        };
        // One table line per row, whatever an error message held.
        let cell = |s: String| {
            s.split_whitespace()
                .collect::<Vec<_>>()
                .join(" ")
                .replace('|', "\\|")
        };
        self.rows
            .push((cell(what.into()), cell(gg.into()), cell(peers)));
    }

    pub fn render(&self) -> String {
        let mut out = String::from("| row | gg | beside it |\n|---|---|---|\n");
        for (what, gg, peers) in &self.rows {
            out.push_str(&format!("| {what} | {gg} | {peers} |\n"));
        }
        out
    }
}

/// (median, p99) in milliseconds.
pub fn summarize(mut samples: Vec<Duration>) -> (f64, f64) {
    assert!(!samples.is_empty(), "no samples");
    samples.sort();
    let ms = |d: Duration| d.as_secs_f64() * 1e3;
    let median = ms(samples[samples.len() / 2]);
    let p99_index = (((samples.len() as f64) * 0.99).ceil() as usize).clamp(1, samples.len()) - 1;
    (median, ms(samples[p99_index]))
}

/// `median 0.434 ms · p99 0.815 ms`
pub fn median_p99(samples: Vec<Duration>) -> String {
    let (median, p99) = summarize(samples);
    format!("median {} · p99 {}", ms(median), ms(p99))
}

/// `met` when `value` is at most `goal`, else `not met`.
pub fn met(value: f64, goal: f64) -> &'static str {
    if value <= goal {
        "met"
    } else {
        "not met"
    }
}

/// Milliseconds with three significant-ish decimals.
pub fn ms(v: f64) -> String {
    if v >= 100.0 {
        format!("{v:.0} ms")
    } else if v >= 10.0 {
        format!("{v:.1} ms")
    } else {
        format!("{v:.3} ms")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn p99_of_a_thousand_is_the_990th() {
        let samples: Vec<Duration> = (1..=1000).map(Duration::from_millis).collect();
        assert_eq!(summarize(samples), (501.0, 990.0));
    }

    #[test]
    fn peers_join_and_default_to_a_dash() {
        let mut t = Table::default();
        t.row("a", "1 ms", vec![]);
        t.row("b", "2 ms", vec!["x".into(), "y".into()]);
        assert_eq!(
            t.render(),
            "| row | gg | beside it |\n|---|---|---|\n| a | 1 ms | – |\n| b | 2 ms | x; y |\n"
        );
    }
}
