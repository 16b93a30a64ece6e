"""Operators' metrics: the Prometheus endpoint (`/metrics`) and what it reads.

Everything the endpoint reports is read, when it is scraped, from what every process already
shares: PostgreSQL (debates, calls, review items, runs) and Redis (the broker's queue, the
sweeper's counters). No figure lives in one process's memory, so any web process answers for
the whole deployment, however many web processes and workers run on however many machines.

- `counters`: the few events no row records (the sweeper's re-enqueues), counted in Redis.
- `figures`: the reads (a bounded number of aggregate queries), cached for every process.
- `exposition`: the figures as Prometheus metric families.
- `views`: the endpoint and its bearer-token / staff guard.

This package's `__init__` imports nothing, so `runs.lifecycle` can count without a cycle.
"""
