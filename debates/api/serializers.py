"""Serializers: validate what clients send, shape what they get back. No business logic."""

from __future__ import annotations

import uuid

from django.conf import settings
from django.urls import reverse
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from agents.api.fields import ModelErrorField
from api.fields import (
    BlankAsNullCharField,
    FilterChoiceField,
    StrictCharField,
    StrictSlugField,
    StrictURLField,
)
from api.links import row_links
from debates import callbacks, outcomes, selectors
from debates.baselines import baselines_view
from debates.default_protocol import default_protocol
from debates.models import Debate
from debates.quality import quality_view
from protocols import (
    PROTOCOLS,
    OptionError,
    effective_options,
    evaluation,
    protocol_for,
    resolve_protocol,
)
from protocols.defense import MAX_QUERY_LENGTH

PROTOCOL_NAMES = sorted(PROTOCOLS)
DECISIONS = sorted({d for p in PROTOCOLS.values() for d in p.decisions})
ORDERINGS = ["-created_at", "created_at", "-cost_usd", "cost_usd"]
REVIEW_STATUSES = ["none", *(c for c in Debate.ReviewStatus.values if c)]


# --- starting a debate --------------------------------------------------------------------------


DEPRECATED_QUESTION_ALIAS = "query"


def _question_from_alias(data):
    """`{"query": ...}` read as `{"question": ...}`; both at once is a 400 naming the one to
    keep."""
    if not hasattr(data, "get") or DEPRECATED_QUESTION_ALIAS not in data:
        return data
    if "question" in data:
        raise serializers.ValidationError(
            {
                DEPRECATED_QUESTION_ALIAS: [
                    "Send the question once, as `question`: `query` is its deprecated old name."
                ]
            }
        )
    data = data.copy()
    if hasattr(data, "setlist"):  # a form-encoded body (QueryDict)
        data.setlist("question", data.getlist(DEPRECATED_QUESTION_ALIAS))
        del data[DEPRECATED_QUESTION_ALIAS]
    else:
        data["question"] = data.pop(DEPRECATED_QUESTION_ALIAS)
    return data


class DebateCreateSerializer(serializers.Serializer):
    question = StrictCharField(
        max_length=MAX_QUERY_LENGTH,
        help_text=f"The question to debate (1-{MAX_QUERY_LENGTH} characters).",
        error_messages={
            "blank": "Ask a question: it may not be empty.",
            "required": "Ask a question: this field is required.",
            "max_length": "The question is too long: at most {max_length} characters.",
        },
    )
    protocol = serializers.ChoiceField(
        choices=PROTOCOL_NAMES,
        required=False,  # the configured default (`__init__`)
        help_text="How the agents debate.",
        error_messages={
            "invalid_choice": "'{input}' is not a known protocol. Known: "
            + ", ".join(PROTOCOL_NAMES)
            + " (GET /api/v1/protocols/ lists them with their options)."
        },
    )
    agents = serializers.ListField(
        child=StrictSlugField(max_length=50),
        required=False,
        max_length=10,
        help_text="Agent slugs, in speaking order. Default: the protocol's default agents.",
    )
    options = serializers.DictField(
        required=False,
        help_text="Options the protocol allows, by name (GET /api/v1/protocols/ lists each "
        "protocol's options with their types, limits and defaults; left out: the default). "
        "With `auto`, those of the protocol it picks.",
    )
    callback_url = StrictURLField(
        required=False,
        max_length=2000,
        help_text="An http(s) URL that receives signed webhook events about this debate.",
    )

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        # Read when the serializer is made, so the schema shows it too.
        self.fields["protocol"].default = default_protocol()

    def validate_callback_url(self, value: str) -> str:
        if problem := callbacks.callback_url_problem(value):
            raise serializers.ValidationError(problem)
        return value

    def to_internal_value(self, data):
        """Every field's errors at once: a bad option is named even when the question is
        missing too (DRF would stop before `validate`). `query` is accepted as the deprecated
        old name of `question` (clients written against it keep working)."""
        data = _question_from_alias(data)
        try:
            attrs = super().to_internal_value(data)
        except serializers.ValidationError as exc:
            errors = dict(exc.detail)
            if "options" not in errors and "protocol" not in errors and isinstance(data, dict):
                protocol = data.get("protocol", self.fields["protocol"].default)
                question = data.get("question") if "question" not in errors else None
                # a selector (auto) needs the question to choose
                if not protocol_for(protocol).is_selector or question:
                    try:
                        self._check_options(protocol, question or "", data.get("options"))
                    except serializers.ValidationError as more:
                        errors.update(more.detail)
            raise serializers.ValidationError(errors) from None
        return attrs

    def validate(self, attrs):
        """Options are checked against the registry here so that each bad one is named:
        `{"options": {"max_rounds": [...]}}`. The options sent are passed on unchanged;
        `debate_create` checks them again and stores them with the defaults filled in."""
        self._check_options(attrs["protocol"], attrs["question"], attrs.get("options"))
        return attrs

    @staticmethod
    def _check_options(protocol: str, question: str, options) -> None:
        if not options or not isinstance(options, dict):
            return
        protocol_cls, choice = resolve_protocol(
            protocol, question, fallback=settings.DEBATE_AUTO_FALLBACK
        )
        try:
            effective_options(protocol_cls, options)
        except OptionError as exc:
            prefix = f"auto chose {choice.chosen} ({choice.reason}): " if choice else ""
            raise serializers.ValidationError(
                {
                    "options": {
                        ("non_field_errors" if name == "options" else name): [prefix + message]
                        for name, message in exc.errors.items()
                    }
                }
            ) from None


class DebateBatchSerializer(serializers.Serializer):
    debates = DebateCreateSerializer(
        many=True,
        allow_empty=False,
        help_text="The debates to start, each as the body of `POST /api/v1/debates/` (from 1 "
        "to `DEBATE_API_BATCH_MAX`, 100 by default).",
        error_messages={"empty": "Send at least one debate."},
    )

    def to_internal_value(self, data):
        """The batch's size is checked before any of its debates."""
        debates = data.get("debates") if isinstance(data, dict) else None
        most = settings.DEBATE_API_BATCH_MAX
        if isinstance(debates, list) and len(debates) > most:
            raise serializers.ValidationError(
                {"debates": [f"Too many debates in one batch: at most {most}."]}
            )
        return super().to_internal_value(data)


class DebateAcceptedSerializer(serializers.ModelSerializer):
    url = serializers.SerializerMethodField()

    class Meta:
        model = Debate
        fields = ["id", "status", "url", "created_at"]

    def get_url(self, debate: Debate) -> str:
        return debate_url(self.context["request"], debate)


class DebateBatchAcceptedSerializer(serializers.Serializer):
    debates = DebateAcceptedSerializer(many=True, help_text="The debates started, in order.")


def debate_url(request, debate: Debate) -> str:
    return request.build_absolute_uri(reverse("api:debate-detail", args=[debate.id]))


# --- reading debates ----------------------------------------------------------------------------


class DebateSummarySerializer(serializers.ModelSerializer):
    """One debate of the list. `LOADS`: the columns it reads (the list loads only these)."""

    LOADS = (
        "id",
        "query",
        "protocol",
        "status",
        "decision",
        "decision_override",
        "review_status",
        "consensus_type",
        "majority_decision",
        "outcome_change",
        "tokens_in",
        "tokens_out",
        "cost_usd",
        "created_by",
        "created_by__username",
        "created_at",
        "started_at",
        "completed_at",
    )
    url = serializers.SerializerMethodField()
    question = serializers.CharField(source="query", read_only=True)
    decision = BlankAsNullCharField(
        source="effective_decision",
        help_text="What the service answers: a reviewer's override if any, else the rules'.",
    )
    machine_decision = BlankAsNullCharField(source="decision", help_text="The rules' decision.")
    review_status = BlankAsNullCharField(
        help_text="null: no review needed; pending, resolved or dismissed."
    )
    consensus_type = BlankAsNullCharField()
    majority_decision = BlankAsNullCharField(
        help_text="What a majority vote of the agents' independent answers would have decided."
    )
    outcome_change = BlankAsNullCharField(
        help_text="The debate vs that majority vote: same, more_cautious, less_cautious, changed."
    )
    created_by = serializers.SlugRelatedField(slug_field="username", read_only=True)

    class Meta:
        model = Debate
        fields = [
            "id",
            "url",
            "question",
            "protocol",
            "status",
            "decision",
            "machine_decision",
            "review_status",
            "consensus_type",
            "majority_decision",
            "outcome_change",
            "tokens_in",
            "tokens_out",
            "cost_usd",
            "created_by",
            "created_at",
            "started_at",
            "completed_at",
        ]
        read_only_fields = fields

    def get_url(self, debate: Debate) -> str:
        """The detail URL, reversed once per list (a page of 100 reversed 100 URLs)."""
        link = self.context.get("debate_link")
        if link is None:
            link = row_links("api:debate-detail", key=uuid.UUID, request=self.context["request"])
            self.context["debate_link"] = link
        return link(debate.id)


class AgentDynamicsSerializer(serializers.Serializer):
    agent = serializers.CharField(help_text="The participant's slug.")
    independent = serializers.CharField(help_text="Its decision alone (its first answer).")
    final = serializers.CharField(help_text="Its final position.")
    change = serializers.ChoiceField(
        choices=list(evaluation.CHANGES),
        help_text="same, more_cautious, less_cautious, or changed (off the ACT/WARN/REFUSE scale).",
    )
    effect = serializers.ChoiceField(
        choices=list(evaluation.EFFECTS),
        allow_null=True,
        help_text="Against the reviewers' verdict: corrected, talked_out, stayed_right, "
        "stayed_wrong or changed_wrong; null without a verdict.",
    )


class BaselinesSerializer(serializers.Serializer):
    """What no debate would have decided (`debates.baselines.baselines_view`)."""

    rules_version = serializers.CharField(help_text="Version of the decision rules used.")
    debate_decision = serializers.CharField()
    majority_decision = serializers.CharField(
        help_text="The independent answers through the same decision rules."
    )
    outcome_change = serializers.ChoiceField(
        choices=list(evaluation.CHANGES), help_text="The debate's decision vs the majority vote."
    )
    label = serializers.CharField()
    single_agent = serializers.DictField(
        child=serializers.CharField(), help_text="Each agent's decision alone, by slug."
    )
    verdict = serializers.CharField(allow_null=True, help_text="The reviewers' verdict, if any.")
    agents = AgentDynamicsSerializer(many=True)


def _score(help_text: str) -> serializers.FloatField:
    return serializers.FloatField(allow_null=True, min_value=0, max_value=1, help_text=help_text)


class QualitySerializer(serializers.Serializer):
    """The quality scores, 0..1; null where the dimension does not apply
    (docs/analysts/evaluation.md#quality-scores)."""

    logical_consistency = _score("Moderator's side scores, else readable, self-consistent share.")
    evidence_quality = _score("Mean evidence quality of arguments with evidence.")
    argument_diversity = _score("1 - mean word overlap (Jaccard) of the independent answers.")
    consensus_quality = _score("Confidence-weighted share of final positions backing it.")
    decision_confidence = _score("Moderator's last confidence, else the backers' mean.")
    overall_quality = _score("Mean of the dimensions that apply.")


class DebateDetailSerializer(DebateSummarySerializer):
    decision_override = BlankAsNullCharField(help_text="A reviewer's verdict, if any.")
    callback_url = BlankAsNullCharField()
    error = ModelErrorField()
    injection_suspected = serializers.SerializerMethodField()
    duration_seconds = serializers.FloatField(read_only=True, allow_null=True)
    baselines = serializers.SerializerMethodField(
        help_text="Single-agent and majority-vote baselines, and how each agent moved; null "
        "until the debate finishes."
    )
    quality = serializers.SerializerMethodField(
        help_text="The debate's quality scores (0..1 each); null until the debate finishes."
    )
    transcript = serializers.SerializerMethodField(
        help_text="Every round, statement, challenge and vote, in the JSON export's shape."
    )

    class Meta(DebateSummarySerializer.Meta):
        fields = [
            *DebateSummarySerializer.Meta.fields,
            "options",
            "reasoning",
            "metadata",
            "decision_override",
            "is_overridden",
            "injection_suspected",
            "callback_url",
            "attempts",
            "error",
            "duration_seconds",
            "baselines",
            "quality",
            "transcript",
        ]
        read_only_fields = fields

    @extend_schema_field(BaselinesSerializer(allow_null=True))
    def get_baselines(self, debate: Debate) -> dict | None:
        return baselines_view(debate)

    @extend_schema_field(QualitySerializer(allow_null=True))
    def get_quality(self, debate: Debate) -> dict | None:
        return quality_view(debate)

    def get_injection_suspected(self, debate: Debate) -> bool:
        return bool(debate.injection_findings)

    @extend_schema_field(OpenApiTypes.OBJECT)
    def get_transcript(self, debate: Debate) -> dict:
        return selectors.debate_export(debate)


class DebateListQuerySerializer(serializers.Serializer):
    """The list's query parameters."""

    status = FilterChoiceField(choices=Debate.Status.values, required=False)
    decision = FilterChoiceField(
        choices=DECISIONS, required=False, help_text="The effective decision."
    )
    machine_decision = FilterChoiceField(choices=DECISIONS, required=False)
    protocol = FilterChoiceField(choices=PROTOCOL_NAMES, required=False)
    consensus_type = serializers.SlugField(
        max_length=20, required=False, help_text="e.g. unanimous, strong_majority, split, veto."
    )
    review_status = FilterChoiceField(
        choices=REVIEW_STATUSES, required=False, help_text="none: no review was needed."
    )
    created_after = serializers.DateTimeField(required=False, help_text="Inclusive.")
    created_before = serializers.DateTimeField(required=False, help_text="Exclusive.")
    q = serializers.CharField(
        max_length=200, required=False, help_text="Text the question contains (any case)."
    )
    outcome = FilterChoiceField(
        choices=list(outcomes.OUTCOMES),
        required=False,
        help_text="What a labelled debate did against the majority vote, by the reviewers' "
        "verdict, as the analytics page counts it: "
        + "; ".join(f"{k}: {v}" for k, v in outcomes.OUTCOMES.items())
        + ".",
    )
    confidence_band = serializers.IntegerField(
        min_value=0,
        max_value=outcomes.CONFIDENCE_BANDS - 1,
        required=False,
        help_text="Decision confidence in bands of 10 %: 0 is 0-10 %, ..., 9 is 90-100 %.",
    )
    model = serializers.CharField(
        max_length=200, required=False, help_text="A model one of its calls used."
    )
    schedule = serializers.IntegerField(
        min_value=1, required=False, help_text="The id of the schedule that started it."
    )
    ordering = FilterChoiceField(choices=ORDERINGS, default="-created_at")
    page_size = serializers.IntegerField(min_value=1, max_value=100, default=20)

    def validate(self, attrs):
        after, before = attrs.get("created_after"), attrs.get("created_before")
        if after and before and after >= before:
            raise serializers.ValidationError(
                {"created_before": "created_before must be later than created_after."}
            )
        return attrs

    def filters(self) -> dict:
        data = self.validated_data
        review = data.get("review_status")
        return {
            "status": data.get("status", ""),
            "decision": data.get("decision", ""),
            "machine_decision": data.get("machine_decision", ""),
            "protocol": data.get("protocol", ""),
            "consensus_type": data.get("consensus_type", ""),
            "review_status": None if review is None else ("" if review == "none" else review),
            "created_after": data.get("created_after"),
            "created_before": data.get("created_before"),
            "search": data.get("q", ""),
            "outcome": data.get("outcome", ""),
            "confidence_band": data.get("confidence_band"),
            "model": data.get("model", "").strip(),
            "schedule_id": data.get("schedule"),
        }
