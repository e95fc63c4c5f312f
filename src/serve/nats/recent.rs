//! The envelope ids this worker answered recently, with their answers: a
//! request retried with the same id (a client that timed out and tried
//! again) is answered from here rather than run twice, and one that
//! arrives while the first is still running waits for its answer.
//!
//! Bounded in count, in bytes and in age: the oldest answers are forgotten
//! first. So are the requests waiting: a few per id, the rest told to
//! retry.

use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use tokio::sync::watch;

/// The most answers kept.
pub(super) const CAPACITY: usize = 10_000;
/// How long an answer is kept.
pub(super) const KEPT: Duration = Duration::from_secs(600);
/// The most bytes of answers (and their keys) kept. A count alone does not
/// bound memory: the peer chooses the envelope ids, which the answers
/// repeat, and a tool's answer may be as large as the server's
/// `max_payload`; 10,000 of those are gigabytes.
pub(super) const BUDGET: usize = 16 * 1024 * 1024;
/// The most requests that wait for the answer of one running id; more are
/// answered busy at once. Each waiting request is a task, and a flood of
/// copies of one slow request must not grow without end.
pub(super) const MAX_WAITING: usize = 8;

/// An answer as sent: the body and, for a failure, its service error
/// (text and code).
#[derive(Debug, Clone)]
pub(super) struct Answer {
    pub(super) body: Vec<u8>,
    pub(super) error: Option<(String, u16)>,
}

impl Answer {
    /// The bytes it holds.
    fn size(&self) -> usize {
        self.body.len() + self.error.as_ref().map_or(0, |(text, _)| text.len())
    }
}

enum Slot {
    /// Its answer comes on the receiver; the `Arc` is shared by the
    /// requests waiting for it (counted by [`Arc::strong_count`]).
    Running(watch::Receiver<Option<Answer>>, Arc<()>),
    Done(Answer),
}

/// What to do with a request.
pub(super) enum Claim {
    /// The id is new: run the call, then [`Recent::finish`] (or
    /// [`Recent::forget`]) it.
    New(watch::Sender<Option<Answer>>),
    /// Answered already: send this again.
    Answered(Answer),
    /// Running: [`wait`] for its answer.
    Running(Waiting),
    /// Running, and [`MAX_WAITING`] requests wait for it already.
    Crowded,
}

/// A request waiting for the answer of a running id.
pub(super) struct Waiting {
    answer: watch::Receiver<Option<Answer>>,
    _place: Arc<()>,
}

pub(super) struct Recent {
    state: Mutex<State>,
}

#[derive(Default)]
struct State {
    slots: HashMap<String, Slot>,
    /// Finished keys, oldest first, with when they finished and their
    /// size in bytes.
    order: VecDeque<(Instant, String, usize)>,
    /// The sum of the sizes in `order`.
    bytes: usize,
}

impl Recent {
    pub(super) fn new() -> Recent {
        Recent {
            state: Mutex::new(State::default()),
        }
    }

    /// Claims `key` (the subject and the envelope id).
    pub(super) fn claim(&self, key: &str) -> Claim {
        let Ok(mut state) = self.state.lock() else {
            let (sender, _) = watch::channel(None);
            return Claim::New(sender);
        };
        state.expire(Instant::now());
        match state.slots.get(key) {
            Some(Slot::Done(answer)) => Claim::Answered(answer.clone()),
            Some(Slot::Running(_, place)) if Arc::strong_count(place) > MAX_WAITING => {
                Claim::Crowded
            }
            Some(Slot::Running(receiver, place)) => Claim::Running(Waiting {
                answer: receiver.clone(),
                _place: Arc::clone(place),
            }),
            None => {
                let (sender, receiver) = watch::channel(None);
                let slot = Slot::Running(receiver, Arc::new(()));
                state.slots.insert(key.to_string(), slot);
                Claim::New(sender)
            }
        }
    }

    /// Keeps `answer` for `key` and hands it to the requests waiting.
    pub(super) fn finish(&self, key: &str, sender: watch::Sender<Option<Answer>>, answer: Answer) {
        let _ = sender.send(Some(answer.clone()));
        let Ok(mut state) = self.state.lock() else {
            return;
        };
        let now = Instant::now();
        let size = key.len() + answer.size();
        state.slots.insert(key.to_string(), Slot::Done(answer));
        state.order.push_back((now, key.to_string(), size));
        state.bytes += size;
        state.expire(now);
    }

    /// Forgets `key` (its call was not made: a retry must run it), handing
    /// `answer` to the requests that waited.
    pub(super) fn forget(&self, key: &str, sender: watch::Sender<Option<Answer>>, answer: Answer) {
        let _ = sender.send(Some(answer));
        if let Ok(mut state) = self.state.lock() {
            state.slots.remove(key);
        }
    }
}

impl State {
    fn expire(&mut self, now: Instant) {
        while let Some((finished, _, _)) = self.order.front() {
            let old = now.duration_since(*finished) > KEPT;
            if !old && self.order.len() <= CAPACITY && self.bytes <= BUDGET {
                break;
            }
            if let Some((_, key, size)) = self.order.pop_front() {
                self.slots.remove(&key);
                self.bytes -= size;
            }
        }
    }
}

/// The answer `waiting` waits for, once there is one (`None` if its call
/// went away without one).
pub(super) async fn wait(mut waiting: Waiting) -> Option<Answer> {
    waiting
        .answer
        .wait_for(Option::is_some)
        .await
        .ok()
        .and_then(|answer| answer.clone())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn answer(text: &str) -> Answer {
        Answer {
            body: text.as_bytes().to_vec(),
            error: None,
        }
    }

    #[test]
    fn an_id_is_run_once_and_answered_again() {
        let recent = Recent::new();
        let Claim::New(sender) = recent.claim("a") else {
            panic!("a new id")
        };
        let Claim::Running(waiting) = recent.claim("a") else {
            panic!("running")
        };
        recent.finish("a", sender, answer("one"));
        assert_eq!(waiting.answer.borrow().as_ref().unwrap().body, b"one");
        let Claim::Answered(again) = recent.claim("a") else {
            panic!("answered")
        };
        assert_eq!(again.body, b"one");
    }

    #[test]
    fn a_forgotten_id_runs_again_and_old_answers_go() {
        let recent = Recent::new();
        let Claim::New(sender) = recent.claim("a") else {
            panic!("new")
        };
        recent.forget("a", sender, answer("busy"));
        assert!(matches!(recent.claim("a"), Claim::New(_)));
        for n in 0..CAPACITY + 5 {
            let key = format!("k{n}");
            if let Claim::New(sender) = recent.claim(&key) {
                recent.finish(&key, sender, answer("x"));
            }
        }
        assert!(matches!(recent.claim("k0"), Claim::New(_)));
        assert!(matches!(recent.claim("k10"), Claim::Answered(_)));
    }

    #[test]
    fn large_answers_are_forgotten_past_the_budget() {
        let recent = Recent::new();
        let large = "x".repeat(BUDGET / 4);
        for n in 0..8 {
            let key = format!("k{n}");
            if let Claim::New(sender) = recent.claim(&key) {
                recent.finish(&key, sender, answer(&large));
            }
        }
        assert!(matches!(recent.claim("k0"), Claim::New(_)));
        assert!(matches!(recent.claim("k7"), Claim::Answered(_)));
        let state = recent.state.lock().unwrap();
        assert!(state.bytes <= BUDGET, "{}", state.bytes);
    }

    #[test]
    fn a_running_id_takes_a_few_waiting_requests_only() {
        let recent = Recent::new();
        let Claim::New(sender) = recent.claim("a") else {
            panic!("new")
        };
        let waiting: Vec<Claim> = (0..MAX_WAITING).map(|_| recent.claim("a")).collect();
        assert!(waiting.iter().all(|c| matches!(c, Claim::Running(_))));
        assert!(matches!(recent.claim("a"), Claim::Crowded));
        drop(waiting);
        assert!(matches!(recent.claim("a"), Claim::Running(_)));
        recent.finish("a", sender, answer("one"));
    }
}
