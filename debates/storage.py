"""A debate run's storage: the hand-built statements that store each step of a run in one round
trip (see `one_statement`), behind `DebateStore`'s named methods; the runner (`debates.running`)
decides what to call and when, and tells the store what came back."""

from __future__ import annotations

import json
import logging
from contextlib import nullcontext
from typing import Any

from django.db import DEFAULT_DB_ALIAS, connection, transaction
from django.utils import timezone

from agents import gateway, routing, spending
from agents.errors import LLMError, failure_text
from budgets import services as budgets
from debates import events, one_statement, webhooks
from debates.baselines import finished_fields
from debates.models import Challenge, Debate, LLMCall, Participant, Round, Statement, Vote
from debates.quality import stored_rows
from debates.reviewing.items import (
    opens_plainly,
    outcome_flags,
    outcome_item_parts,
    review_items_for_debate,
)
from debates.totals import totals_sql
from protocols import defense
from protocols.base import CallRequest, ChallengeReply, Outcome, Results
from runs import lifecycle

logger = logging.getLogger(__name__)


class DebateStore:
    """What a debate's run stores, each step in one statement (`one_statement`): the round and the
    calls about to be made with their spending holds (`start`), the replies that returned
    together (`replies`), a call that failed (`failure`), and the outcome (`finish`). It keeps
    what the run needs to know of them: the replies stored so far (`done`), the rounds, and the
    ids of the calls and statements."""

    def __init__(self, debate: Debate, *, participants: dict[str, Participant], protocol):
        """`debate` as `DebateWork`'s claim returned it (with what `claim_returns` adds)."""
        self.debate = debate
        self.participants = participants
        self.protocol = protocol
        # Replies stored by this run or an earlier one, learnt as each step starts (`start`):
        # when the debate was claimed with calls recorded by an earlier run (`resuming`, read
        # by the claim).
        self.done: dict[str, dict] = {}
        self.resuming = debate.resuming
        # Replies the defense layer flagged (screened as they are stored): the debate's review.
        self.flagged: dict[str, list] = {}
        self.rounds: dict[int, Round] = {}
        self.call_ids: dict[str, int] = {}
        self.statement_ids: dict[str, int] = {}
        # What this run stored (statements and challenges, by call key), with their calls.
        self.kept: dict[str, Statement | Challenge] = {}
        self.heartbeat = lifecycle.Heartbeat(Debate, debate.pk)

    def round_part(self, number: int, name: str, *, completed: bool) -> one_statement.Part:
        rnd = Round(debate=self.debate, number=number, name=name)
        if completed:
            rnd.status, rnd.completed_at = Round.Status.COMPLETED, timezone.now()
        return one_statement.insert(
            "r",
            [rnd],
            returning=("id", "status"),
            unique_fields=("debate", "number"),
            update_fields=("status", "completed_at") if completed else ("name",),
        )

    def _round_rows(self, number: int, name: str, rows) -> None:
        for kind, pk, value, *_ in rows:
            if kind == "r":
                # As the ORM makes a row it read (the other fields deferred).
                self.rounds[number] = Round.from_db(
                    DEFAULT_DB_ALIAS,
                    ["id", "debate_id", "number", "name", "status"],
                    [pk, self.debate.pk, number, name, value],
                )

    def start(
        self,
        number: int,
        name: str,
        requests: list[CallRequest],
        *,
        completed: bool = False,
        reserving: spending.StepReservation | None = None,
    ) -> None:
        """In one statement: store the round if it is not yet, record the calls about to be
        made (the live view shows them as in flight), except those an earlier run stored
        replies for (looked for when `resuming`): those are read back (into `done`) instead,
        and reserve the others against the spending limits (`reserving`, in their order, as
        many as fit)."""
        parts, selects, params = [], [], []
        if number not in self.rounds or completed:
            parts.append(self.round_part(number, name, completed=completed))
            selects.append("SELECT 'r', id, status, NULL::jsonb, NULL::jsonb FROM r")
        if requests:
            table = LLMCall._meta.db_table
            sent = timezone.now()  # replaced by the gateway's own measure once answered
            parts.append(
                one_statement.insert(
                    "c",
                    [
                        LLMCall(
                            debate=self.debate,
                            participant=self.participants[r.participant],
                            key=r.key,
                            round_number=r.round_number,
                            step=r.step,
                            model=self.asked_for(r),
                            prompt=list(r.messages),
                            status=LLMCall.Status.PENDING,
                            started_at=sent,
                        )
                        for r in requests
                    ],
                    returning=("id", "key"),
                    unique_fields=("debate", "key"),
                    update_fields=("status", "prompt", "model", "started_at", "completed_at"),
                    update_where=f"{table}.status <> '{LLMCall.Status.DONE}'",
                )
            )
            selects.append("SELECT 'c', id, key, NULL::jsonb, NULL::jsonb FROM c")
            if self.resuming:
                selects.append(
                    f"SELECT 'd', id, key, parsed, injection_findings FROM {table} "
                    f"WHERE debate_id = %s AND "
                    f"status = '{LLMCall.Status.DONE}' AND key = ANY(%s)"
                )
                params += [self.debate.pk, [r.key for r in requests]]
        reserve = None
        if reserving:
            reserve = reserving.sql(*self._skip_done(reserving.keys) if self.resuming else ())
        if reserve is not None:
            parts.append(one_statement.Part("h", *reserve))
            selects.append(
                "SELECT 'h', hold_id, call_index::text, jsonb_build_array(b_key, b_period, "
                "b_unit, b_used::text, b_limit::text), NULL::jsonb FROM h"
            )
        rows = one_statement.execute(parts, " UNION ALL ".join(selects), params)
        if reserve is not None:
            reserving.read(
                [
                    (int(index), hold, *(json.loads(breach) if isinstance(breach, str) else breach))
                    for kind, hold, index, breach, _ in rows
                    if kind == "h"
                ]
            )
        self._round_rows(number, name, rows)
        parsed_field = LLMCall._meta.get_field("parsed")
        findings_field = LLMCall._meta.get_field("injection_findings")
        for kind, pk, key, parsed, findings in rows:
            if kind == "c":
                self.call_ids[key] = pk
            elif kind == "d":  # read as the ORM reads it
                self.done[key] = parsed_field.from_db_value(parsed, None, connection)
                if findings := findings_field.from_db_value(findings, None, connection):
                    self.flagged[key] = findings
        started = [
            ("call.started", events.call_data(self.call_ids[r.key], r))
            for r in requests
            if r.key not in self.done
        ]
        if completed:
            started.append(("round.finished", {"round": number, "name": name}))
        events.publish(self.debate.pk, started)

    def _skip_done(self, keys: list[str]) -> tuple[str, list]:
        """SQL marking the calls an earlier run stored replies for (not to be reserved)."""
        table = LLMCall._meta.db_table
        return (
            f"ARRAY(SELECT EXISTS(SELECT 1 FROM {table} d WHERE d.debate_id = %s AND "
            f"d.status = '{LLMCall.Status.DONE}' AND d.key = t.k) "
            "FROM unnest(%s::text[]) WITH ORDINALITY AS t(k, n) ORDER BY t.n)",
            [self.debate.pk, keys],
        )

    def asked_for(self, request: CallRequest) -> str:
        """The participant's model, or the group its calls of this step are routed to."""
        p = self.participants[request.participant]
        return p.model_name or routing.config().route(request.step, p.role)

    def failure(self, request: CallRequest, exc: LLMError) -> None:
        error = failure_text("", exc)[:5000]
        LLMCall.objects.filter(debate=self.debate, key=request.key).update(
            status=LLMCall.Status.FAILED,
            error=error,
            attempts=exc.attempts,
            completed_at=timezone.now(),
            **(LLMCall.lost_added(exc.lost) if exc.lost else {}),
        )
        data = events.call_data(self.call_ids.get(request.key), request)
        events.publish(
            self.debate.pk,
            [("call.finished", {**data, "status": LLMCall.Status.FAILED, "error": error})],
        )

    def replies(
        self,
        rnd: Round,
        answered: list[tuple[CallRequest, gateway.LLMResponse, spending.Settlement | None]],
        *,
        closes_round: bool = False,
    ) -> Results:
        """Store the replies that returned together in one statement (atomic on its own, one
        round trip): each call's record, the statement or challenge it made, the settling of
        their spending (`paid`, all together), the round's end when the last of a step that
        closes its round is among them, and whatever `_store_extras` adds. A reply never waits
        for another: the ones that came back while an earlier store ran are stored together."""
        parts: list[one_statement.Part] = []
        selects: list[str] = []
        stored = []
        for i, (request, response, _) in enumerate(answered):
            reply, parsed, made, reply_parts = self._reply_parts(i, rnd, request, response)
            parts.extend(reply_parts)
            selects.append(f"SELECT {i}, made{i}.id FROM made{i}")
            stored.append((request, response, reply, parsed, made))
        select = " UNION ALL ".join(selects)
        settled = [paid for _, _, paid in answered if paid is not None]
        if paid := spending.Settlement.together(settled):
            # A SELECT part runs only when read: the final select reads it.
            parts.append(one_statement.Part("paid", *paid))
            select = f"SELECT made.* FROM ({select}) made CROSS JOIN paid"
        completed_at = timezone.now()
        if closes_round:
            parts.append(
                one_statement.update(
                    "round_end",
                    Round,
                    rnd.pk,
                    {"status": Round.Status.COMPLETED, "completed_at": completed_at},
                )
            )
        parts.extend(self._store_extras())
        ids = dict(one_statement.execute(parts, select))
        for settlement in settled:
            settlement.done = True
        replies: Results = {}
        for i, (request, response, reply, parsed, made) in enumerate(stored):
            made.pk = ids[i]
            self.kept[request.key] = made
            if isinstance(made, Statement):
                # What the quality scores read of its call (`quality.record_for`), the other
                # fields deferred.
                call = LLMCall.from_db(
                    DEFAULT_DB_ALIAS,
                    ["id", "tokens_in", "tokens_out", "cost_usd"],
                    [
                        self.call_ids[request.key],
                        response.tokens_in,
                        response.tokens_out,
                        response.cost_usd,
                    ],
                )
                Statement.call.field.set_cached_value(made, call)
                self.statement_ids[request.key] = made.pk
            self.done[request.key] = parsed
            replies[request.key] = reply
        if closes_round:
            rnd.status, rnd.completed_at = Round.Status.COMPLETED, completed_at
        self.heartbeat.beat()
        finished = [
            (
                "call.finished",
                {
                    **events.call_data(self.call_ids[request.key], request, rnd.number),
                    "status": LLMCall.Status.DONE,
                    "model": response.model,
                    "tokens_in": response.tokens_in,
                    "tokens_out": response.tokens_out,
                    "latency_ms": response.latency_ms,
                    "reply": parsed,
                },
            )
            for request, response, _, parsed, _ in stored
        ]
        if closes_round:
            finished.append(("round.finished", {"round": rnd.number, "name": rnd.name}))
        events.publish(self.debate.pk, finished)
        return replies

    def _reply_parts(
        self, i: int, rnd: Round, request: CallRequest, response: gateway.LLMResponse
    ) -> tuple[Any, dict, Statement | Challenge, list[one_statement.Part]]:
        """One returned call's reply, read by the protocol and screened, as stored, and the
        parts that store it (named with `i`): its call's record (`call{i}`) and the statement
        or challenge it made (`made{i}`, returning its id)."""
        reply = self.protocol.parse(request, response.content)
        parsed = reply.as_json()
        call_id = self.call_ids[request.key]
        participant = self.participants[request.participant]
        findings = defense.screen_reply(response.content)
        if findings:
            self.flagged[request.key] = findings
        call = one_statement.update(
            f"call{i}",
            LLMCall,
            call_id,
            LLMCall.done_fields(
                response,
                parsed=parsed,
                parse_failed=reply.parse_failed,
                error=reply.error,
                injection_findings=findings,
            ),
            raw=LLMCall.lost_sql(response.lost),
        )
        if isinstance(reply, ChallengeReply):
            made = Challenge(
                debate=self.debate,
                round=rnd,
                challenger=participant,
                challenged=self.participants[request.target],
                call_id=call_id,
                stance=reply.stance,
                agrees_with_conclusion=reply.agrees_with_conclusion,
                argument=reply.argument,
                suggested_decision=reply.suggested_decision,
                parse_failed=reply.parse_failed,
            )
        else:
            previous = ""
            if request.previous_key:
                previous = self.done.get(request.previous_key, {}).get("decision", "")
            made = Statement(
                debate=self.debate,
                round=rnd,
                participant=participant,
                call_id=call_id,
                kind=request.step,
                decision=reply.decision,
                confidence=reply.confidence,
                risk=reply.risk,
                reasoning=reply.reasoning,
                previous_decision=previous,
                parse_failed=reply.parse_failed,
                notes=list(reply.notes),
                details=dict(reply.details or {}),
            )
        return reply, parsed, made, [call, one_statement.insert(f"made{i}", [made])]

    def _store_extras(self) -> list[one_statement.Part]:
        """More writes that ride in every store's statement (none yet)."""
        return []

    def finish(self, outcome: Outcome) -> None:
        """In one statement: the final round (stored completed), the votes, the decision with
        its totals, baselines and quality scores (computed from the replies this run holds, or
        read back when an earlier run stored some), and, when the outcome needs a human, its
        review item and the item's `created` event, and the end of its admission against the
        spending limits; none of it is kept unless the debate was still running."""
        debate = self.debate
        if outcome.decision.decision not in self.protocol.decisions:
            raise RuntimeError(
                f"{debate.protocol} decided {outcome.decision.decision!r}, which is not one of "
                f"its decisions ({', '.join(self.protocol.decisions)})"
            )
        metadata = outcome.metadata(debate.metadata)
        if debate.injection_findings:
            metadata["injection_suspected"] = True
        if self.flagged:
            metadata["injection_in_replies"] = [
                {"call": key, "kinds": sorted({f["kind"] for f in found})}
                for key, found in sorted(self.flagged.items())
            ]
        flags = outcome_flags(metadata, debate.injection_findings)
        number, name = outcome.final_round_number, outcome.final_round_name
        keys = [v.statement_key for v in outcome.votes if v.statement_key]
        statements = {k: self.statement_ids[k] for k in keys if k in self.statement_ids}
        if missing := [k for k in keys if k not in statements]:  # stored by an earlier run
            statements.update(
                Statement.objects.filter(debate=debate, call__key__in=missing).values_list(
                    "call__key", "id"
                )
            )
        votes = [
            Vote(
                debate=debate,
                participant=self.participants[v.participant],
                statement_id=statements.get(v.statement_key),
                decision=v.decision,
                confidence=v.confidence,
                risk=v.risk,
                reasoning=v.reasoning,
            )
            for v in outcome.votes
        ]
        rows = self._finished_rows(votes)
        if rows is None:  # an earlier run stored some replies: its statements read back
            stored, _, challenges = stored_rows(debate.pk)
            rows = stored, votes, challenges
        # What no debate would have decided, and the quality scores, stored with the decision.
        _, evaluated = finished_fields(debate, outcome.decision.decision, rows=rows)
        plain = opens_plainly(debate.raised_before)  # returned by the claim
        now = timezone.now()
        parts = []
        rnd = self.rounds.get(number)
        if rnd is None or rnd.status != Round.Status.COMPLETED:
            parts.append(self.round_part(number, name, completed=True))
        if votes:
            parts.append(one_statement.insert("v", votes, ignore_conflicts=True))
        items = outcome_item_parts(debate.pk, flags, at=now) if plain else []
        parts += items
        # Every call the debate made, stored before this statement (which sees them).
        raw = totals_sql(debate.pk)
        if items:
            raw["review_status"] = (
                "CASE WHEN EXISTS (SELECT 1 FROM ri) THEN %s ELSE review_status END",
                [Debate.ReviewStatus.PENDING],
            )
        parts.append(
            one_statement.update(
                "d",
                Debate,
                debate.pk,
                {
                    **evaluated,
                    "status": Debate.Status.COMPLETED,
                    "decision": outcome.decision.decision,
                    "reasoning": outcome.decision.reasoning,
                    "metadata": metadata,
                    "consensus_type": outcome.decision.consensus_type,
                    "agreement": self.protocol.agreement_percent(metadata),
                    "completed_at": now,
                    "updated_at": now,
                    "error": "",
                },
                raw=raw,
                where=("status = %s", [Debate.Status.RUNNING]),
                returning="id",
            )
        )
        # Its admission ends: what it spent counts on the account limits in its place.
        parts.append(one_statement.Part("closed", *budgets.close_sql(f"debate:{debate.pk}")))
        still_running, refused = one_statement.refuse_unless(
            "EXISTS (SELECT FROM d) AND EXISTS (SELECT FROM closed)",
            "the debate stopped running while it was being completed",
        )
        item_ids = "(SELECT array_agg(id) FROM ri)" if items else "NULL::bigint[]"
        # An outcome item raised before (a debate run again) is joined or skipped by
        # `review_items_for_debate`, in the transaction that completes the debate; inside a
        # caller's transaction, a savepoint keeps it usable when the statement fails (the run
        # then fails the debate in it).
        joins = bool(flags) and not plain
        with transaction.atomic() if joins or connection.in_atomic_block else nullcontext():
            try:
                [(_, opened)] = one_statement.execute(
                    parts, f"SELECT {still_running}, {item_ids}", refused
                )
            except one_statement.Refused as exc:
                raise RuntimeError(str(exc)) from None
            debate.status, debate.metadata = Debate.Status.COMPLETED, metadata
            if joins:
                review_items_for_debate(debate=debate, completed=debate)
        ended = [
            (
                "decision",
                {
                    "decision": outcome.decision.decision,
                    "consensus": outcome.decision.consensus_type,
                    "reasoning": outcome.decision.reasoning,
                },
            )
        ]
        if opened:
            ended.append(
                ("review.flagged", {"reasons": [f.reason for f in flags], "item": opened[0]})
            )
        events.publish(debate.pk, ended)
        if opened:
            debate.review_status = Debate.ReviewStatus.PENDING
            logger.info(
                "debate %s: review item #%s (%s)",
                debate.pk,
                opened[0],
                ", ".join(f.reason for f in flags),
            )
        if debate.callback_url:
            webhooks.notify_debate_event(debate_id=debate.id, event=webhooks.Event.DEBATE_COMPLETED)

    def _finished_rows(self, votes: list[Vote]):
        """What the baselines and quality scores are computed from, as `finished_fields` reads
        them, when this run stored every reply of the debate (None: read them back)."""
        if not set(self.done) <= set(self.kept):
            return None
        kept = sorted(
            (made for made in self.kept.values() if isinstance(made, Statement)),
            key=lambda s: (s.round.number, s.participant.position),
        )
        challenges = [made.argument for made in self.kept.values() if isinstance(made, Challenge)]
        return kept, votes, challenges
