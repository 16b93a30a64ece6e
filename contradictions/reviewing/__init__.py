"""Contradiction runs as subjects of the review queue: opening their items (`items`) and what
the queue does with them (`subject`, registered with `reviews.subjects` when the app is ready):
pages, API, the value to keep, re-running a failed run."""
