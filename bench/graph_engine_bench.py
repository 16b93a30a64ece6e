"""The comparison point for a persisted debate's cost: the same S4 debate shape run by a general
graph engine (LangGraph) with its PostgreSQL checkpointer, on this machine, in the same run.

Not part of the service and not one of its dependencies: it runs in a virtual environment of
its own (`bench/graph_engine_requirements.txt`), and `bench/debate_bench.py --worker-cost
--graph-python PATH` starts it and prints both costs side by side.

The graph: three analyses in parallel, then six challenges (each agent challenges each other
one), then three revisions, then a decision taken in plain Python (majority, any REFUSE with
risk at or above 50 vetoes). Each node builds a prompt from what the debate holds so far,
"calls" the simulated model (sleeps `--latency` seconds and returns a reply the service's
offline model gave for the same step, read from `--replies`), parses its JSON and adds the
call (prompt, reply, parsed fields) to the state. The checkpointer saves each node's writes as
it finishes and a checkpoint after every step (durability "sync"), as the service stores each
call as it returns. Nothing goes through an LLM client: the service's figure to compare is
its cost without the LLM client's share (which `debate_bench.py` prints apart).

Prints one JSON line: CPU per debate of this process and of the PostgreSQL backends serving
it (both ms, from /proc), and the process's CPU per debate with an in-memory checkpointer.

With --makespan N:L (repeatable), it prints instead the makespans of N debates started together
at latency L, divided by S4's critical path (3 L), in `--processes` processes of `--threads`
threads each (the service's worker processes and their concurrency), each process taking its
share of the N: with the PostgreSQL checkpointer, and in memory. Each process first runs as
many debates as it has threads (every thread and pooled connection used, as in a worker that
has been running), then all start at once; the makespan runs from that start to the last
debate's end.

Usage: PYTHON bench/graph_engine_bench.py --dsn postgres://... --replies replies.json
           [--debates 200] [--latency 0.02] [--threads 32]
           [--makespan 50:0.2 ... --processes 2]
"""

from __future__ import annotations

import argparse
import json
import operator
import os
import time
import uuid
from concurrent.futures import ThreadPoolExecutor
from functools import partial
from typing import Annotated, TypedDict

CLK_TCK = os.sysconf("SC_CLK_TCK")
AGENTS = ["utility", "accuracy", "safety"]
SYSTEM = "You are the {agent} agent of a three-agent debate. " + "Answer in JSON only. " * 40


def proc_cpu(pid: int) -> float:
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / CLK_TCK


class Debate(TypedDict):
    question: str
    calls: Annotated[list, operator.add]
    decision: str


def build(replies: dict[str, list[str]], latency: float, checkpointer):
    from langgraph.graph import END, START, StateGraph
    from langgraph.types import Send

    def model(step: str, index: int, prompt: str) -> dict:
        time.sleep(latency)
        text = replies[step][index % len(replies[step])]
        return {
            "step": step,
            "index": index,
            "prompt": prompt,
            "reply": text,
            "parsed": json.loads(text),
        }

    def earlier(calls: list, step: str) -> str:
        return "\n".join(f"{c['index']}: {c['reply']}" for c in calls if c["step"] == step)

    def analysis(task: dict) -> dict:
        prompt = f"{SYSTEM.format(agent=task['agent'])}\nQUESTION: {task['question']}"
        return {"calls": [model("analysis", task["i"], prompt)]}

    def challenge(task: dict) -> dict:
        prompt = (
            f"{SYSTEM.format(agent=task['agent'])}\nQUESTION: {task['question']}\n"
            f"CHALLENGE {task['target']}:\n{task['analyses']}"
        )
        return {"calls": [model("challenge", task["i"], prompt)]}

    def revision(task: dict) -> dict:
        prompt = (
            f"{SYSTEM.format(agent=task['agent'])}\nQUESTION: {task['question']}\n"
            f"ANALYSES:\n{task['analyses']}\nCHALLENGES:\n{task['challenges']}"
        )
        return {"calls": [model("revision", task["i"], prompt)]}

    def to_analyses(state: Debate):
        return [
            Send("analysis", {"agent": a, "i": i, "question": state["question"]})
            for i, a in enumerate(AGENTS)
        ]

    def to_challenges(state: Debate):
        analyses = earlier(state["calls"], "analysis")
        pairs = [(a, b) for a in AGENTS for b in AGENTS if a != b]
        return [
            Send(
                "challenge",
                {
                    "agent": a,
                    "target": b,
                    "i": i,
                    "analyses": analyses,
                    "question": state["question"],
                },
            )
            for i, (a, b) in enumerate(pairs)
        ]

    def to_revisions(state: Debate):
        analyses = earlier(state["calls"], "analysis")
        challenges = earlier(state["calls"], "challenge")
        return [
            Send(
                "revision",
                {
                    "agent": a,
                    "i": i,
                    "analyses": analyses,
                    "challenges": challenges,
                    "question": state["question"],
                },
            )
            for i, a in enumerate(AGENTS)
        ]

    def decide(state: Debate) -> dict:
        votes = [c["parsed"] for c in state["calls"] if c["step"] == "revision"]
        if any(v["decision"] == "REFUSE" and v.get("risk", 0) >= 50 for v in votes):
            return {"decision": "REFUSE"}
        counts: dict[str, int] = {}
        for v in votes:
            counts[v["decision"]] = counts.get(v["decision"], 0) + 1
        top = max(counts.values())
        leaders = [d for d, n in counts.items() if n == top]
        return {"decision": leaders[0] if len(leaders) == 1 else "WARN"}

    def joined(state: Debate) -> dict:
        return {}

    graph = StateGraph(Debate)
    for name, node in [
        ("analysis", analysis),
        ("analysed", joined),
        ("challenge", challenge),
        ("challenged", joined),
        ("revision", revision),
        ("decide", decide),
    ]:
        graph.add_node(name, node)
    graph.add_conditional_edges(START, to_analyses, ["analysis"])
    graph.add_edge("analysis", "analysed")
    graph.add_conditional_edges("analysed", to_challenges, ["challenge"])
    graph.add_edge("challenge", "challenged")
    graph.add_conditional_edges("challenged", to_revisions, ["revision"])
    graph.add_edge("revision", "decide")
    graph.add_edge("decide", END)
    return graph.compile(checkpointer=checkpointer)


QUESTIONS = [
    "What is the capital of France?",
    "Is Bitcoin a good investment?",
    "How do I hack into my ex's email?",
    "Should I learn Python or Go?",
]


def debate(graph, i: int) -> None:
    """Debate question `i` (of QUESTIONS, in turn) on a thread of its own, durably."""
    config = {"configurable": {"thread_id": str(uuid.uuid4())}}
    final = graph.invoke(
        {"question": QUESTIONS[i % len(QUESTIONS)], "calls": [], "decision": ""},
        config,
        durability="sync",
    )
    assert len(final["calls"]) == 12 and final["decision"], final


def run(graph, debates: int, threads: int, around=None) -> float:
    """Process CPU seconds for `debates` debates, `threads` at a time, after 10 for warming
    up; `around`, if given, is called just before and just after the measured ones."""

    one = partial(debate, graph)

    with ThreadPoolExecutor(threads) as pool:
        list(pool.map(one, range(10)))  # warm-up: every thread and pooled connection used
        if around:
            around()
        c0 = time.process_time()
        list(pool.map(one, range(debates)))
        cpu = time.process_time() - c0
        if around:
            around()
        return cpu


def saver_pool(dsn: str, size: int):
    """The checkpointer's connection pool, as LangGraph's documentation sets it up."""
    from psycopg.rows import dict_row
    from psycopg_pool import ConnectionPool

    pool = ConnectionPool(
        dsn,
        min_size=size,
        max_size=size,
        kwargs={"autocommit": True, "prepare_threshold": 0, "row_factory": dict_row},
        open=True,
    )
    pool.wait()
    return pool


def makespan_part(dsn, replies, latency, count, threads, durable, ready, go, done) -> None:
    """One process's share of a makespan: warm up, say so, wait for the start, run `count`
    debates at once on `threads` threads, and report when the last one ended."""
    from langgraph.checkpoint.memory import InMemorySaver
    from langgraph.checkpoint.postgres import PostgresSaver

    pool = saver_pool(dsn, threads) if durable else None
    graph = build(replies, latency, PostgresSaver(pool) if durable else InMemorySaver())

    one = partial(debate, graph)

    with ThreadPoolExecutor(threads) as executor:
        list(executor.map(one, range(threads)))
        ready.put(os.getpid())
        go.wait()
        list(executor.map(one, range(count)))
        done.put(time.time())
    if pool is not None:
        pool.close()


def makespan(dsn, replies, count: int, latency: float, processes: int, threads: int, durable):
    """Wall seconds for `count` debates started together, split over `processes` processes."""
    import multiprocessing

    ctx = multiprocessing.get_context("spawn")
    ready, done, go = ctx.Queue(), ctx.Queue(), ctx.Event()
    shares = [count // processes + (1 if p < count % processes else 0) for p in range(processes)]
    parts = [
        ctx.Process(
            target=makespan_part,
            args=(dsn, replies, latency, share, threads, durable, ready, go, done),
        )
        for share in shares
    ]
    for part in parts:
        part.start()
    for _ in parts:
        ready.get(timeout=300)
    started = time.time()
    go.set()
    ended = max(done.get(timeout=600) for _ in parts)
    for part in parts:
        part.join()
    return ended - started


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--dsn", required=True)
    parser.add_argument("--replies", required=True)
    parser.add_argument("--debates", type=int, default=200)
    parser.add_argument("--latency", type=float, default=0.02)
    parser.add_argument("--threads", type=int, default=32)
    parser.add_argument("--makespan", action="append", default=[], metavar="N:L")
    parser.add_argument("--processes", type=int, default=2)
    args = parser.parse_args()
    with open(args.replies) as f:
        replies = json.load(f)

    if args.makespan:
        from langgraph.checkpoint.postgres import PostgresSaver

        with saver_pool(args.dsn, 1) as pool:
            PostgresSaver(pool).setup()
        for spec in args.makespan:
            count, latency = int(spec.split(":")[0]), float(spec.split(":")[1])
            walls = {
                kind: makespan(
                    args.dsn, replies, count, latency, args.processes, args.threads, durable
                )
                for kind, durable in (("postgres", True), ("in_memory", False))
            }
            print(
                json.dumps(
                    {
                        "debates": count,
                        "latency": latency,
                        **{f"{k}_s": round(w, 3) for k, w in walls.items()},
                        **{f"{k}_x3L": round(w / (3 * latency), 2) for k, w in walls.items()},
                    }
                )
            )
        return

    from langgraph.checkpoint.memory import InMemorySaver
    from langgraph.checkpoint.postgres import PostgresSaver

    in_memory = run(build(replies, args.latency, InMemorySaver()), args.debates, args.threads)

    pool = saver_pool(args.dsn, args.threads)
    saver = PostgresSaver(pool)
    saver.setup()
    graph = build(replies, args.latency, saver)
    with pool.connection() as conn:
        dbname = conn.info.dbname
    import psycopg

    with psycopg.connect(args.dsn, autocommit=True) as watcher:

        def backends() -> dict[int, float]:
            pids = [
                pid
                for (pid,) in watcher.execute(
                    "SELECT pid FROM pg_stat_activity "
                    "WHERE datname = %s AND pid <> pg_backend_pid()",
                    [dbname],
                )
            ]
            return {pid: proc_cpu(pid) for pid in pids}

        seen: list[dict[int, float]] = []
        process = run(graph, args.debates, args.threads, around=lambda: seen.append(backends()))
    pool.close()
    before, after = seen
    postgres = sum(after[p] - before.get(p, 0.0) for p in after)
    n = args.debates
    print(
        json.dumps(
            {
                "debates": n,
                "process_ms": round(process / n * 1000, 1),
                "postgres_ms": round(postgres / n * 1000, 1),
                "in_memory_process_ms": round(in_memory / n * 1000, 1),
            }
        )
    )


if __name__ == "__main__":
    main()
