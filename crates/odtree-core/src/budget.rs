//! The resources one search may use: a deadline and an interrupt flag, owned by the fit.

use crate::sync::lock;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// Why a search stopped before proving optimality.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stop {
    /// The time limit was reached.
    TimeLimit,
    /// The caller raised the interrupt flag (Ctrl-C).
    Interrupted,
    /// Even after wiping everything it could, the cache would outgrow its memory limits.
    MemoryLimit,
}

impl Stop {
    /// The name used in the Python API, as for the matching [`Status`](crate::Status).
    pub fn as_str(self) -> &'static str {
        match self {
            Stop::TimeLimit => "time_limit",
            Stop::Interrupted => "interrupted",
            Stop::MemoryLimit => "memory_limit",
        }
    }
}

/// Where a search posts each better tree as it finds it, as (seconds since the start,
/// objective, proven bound), for a watcher in another thread to take.
pub type Feed = Arc<Mutex<Vec<[f64; 3]>>>;

/// Limits for one search. Each fit owns its budget, so parallel fits never interfere.
#[derive(Clone, Debug, Default)]
pub struct Budget {
    deadline: Option<Instant>,
    interrupt: Option<Arc<AtomicBool>>,
    ticks: u32,
    stopped: Option<Stop>,
    feed: Option<Feed>,
}

/// How many checks are skipped between two reads of the clock.
const CLOCK_EVERY: u32 = 64;

impl Budget {
    /// A budget with an optional time limit and an optional interrupt flag. A limit past what
    /// the clock can represent means no limit.
    pub fn new(time_limit: Option<Duration>, interrupt: Option<Arc<AtomicBool>>) -> Self {
        Self {
            deadline: time_limit.and_then(|t| Instant::now().checked_add(t)),
            interrupt,
            // the first check reads the clock, so a limit already spent stops at once
            ticks: CLOCK_EVERY - 1,
            stopped: None,
            feed: None,
        }
    }

    /// The same budget, posting the search's progress to `feed` as it goes.
    pub fn with_feed(self, feed: Feed) -> Self {
        Self {
            feed: Some(feed),
            ..self
        }
    }

    /// The same deadline and interrupt, posting to no feed: for a search whose events are
    /// not the caller's.
    pub fn without_feed(&self) -> Self {
        Self {
            deadline: self.deadline,
            ..Self::new(None, self.interrupt.clone())
        }
    }

    /// When the time limit ends, if there is one.
    pub fn deadline(&self) -> Option<Instant> {
        self.deadline
    }

    /// A budget for part of the search: the same interrupt and feed, and a deadline no later
    /// than `deadline`.
    pub fn until(&self, deadline: Instant) -> Self {
        Self {
            deadline: Some(self.deadline.map_or(deadline, |d| d.min(deadline))),
            feed: self.feed.clone(),
            ..Self::new(None, self.interrupt.clone())
        }
    }

    /// Posts a progress event to the feed, if there is one.
    pub fn post(&self, event: [f64; 3]) {
        if let Some(feed) = &self.feed {
            // a watcher that panicked holding the lock leaves the events readable
            let mut events = lock(feed);
            events.push(event);
        }
    }

    /// Returns why the search must stop, if it must. Cheap enough to call at every node.
    #[inline]
    pub fn check(&mut self) -> Option<Stop> {
        if self.stopped.is_some() {
            return self.stopped;
        }
        self.ticks += 1;
        if self.ticks < CLOCK_EVERY {
            return None;
        }
        self.ticks = 0;
        self.check_now()
    }

    /// Whether the search must stop: reads the clock at once when `at_once` (before a step
    /// that may take long, such as a Python callback), else as [`check`](Self::check) does.
    #[inline]
    pub fn exhausted(&mut self, at_once: bool) -> bool {
        if at_once {
            self.check_now().is_some()
        } else {
            self.check().is_some()
        }
    }

    /// Reads the clock and the interrupt flag now.
    pub fn check_now(&mut self) -> Option<Stop> {
        if self
            .interrupt
            .as_ref()
            .is_some_and(|flag| flag.load(Ordering::Relaxed))
        {
            self.stopped = Some(Stop::Interrupted);
        } else if self.deadline.is_some_and(|d| Instant::now() >= d) {
            self.stopped = Some(Stop::TimeLimit);
        }
        self.stopped
    }

    /// Stops the search for `reason` (the first reason given sticks).
    pub fn stop(&mut self, reason: Stop) {
        self.stopped.get_or_insert(reason);
    }

    /// The reason the search stopped early, if it did.
    pub fn stopped(&self) -> Option<Stop> {
        self.stopped
    }
}
