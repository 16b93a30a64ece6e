"""A debate as a subject of the review queue: which outcomes need a human (`triage`), opening
their items (`items`), and what the queue does with a debate's items (`subject`, registered with
`reviews.subjects` when the app is ready): its pages, its API, its verdicts."""
