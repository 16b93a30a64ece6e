"""The review queue's API representations. A subject (debate, contradiction, failed run) is
shown by the serializer field its `reviews.subjects.ReviewSubject` gives."""

from __future__ import annotations

from django.contrib.auth import get_user_model
from django.urls import reverse
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from api.fields import (
    BlankAsNullCharField,
    FilterChoiceField,
    StrictBooleanField,
    StrictCharField,
)
from api.links import row_links
from reviews import selectors, subjects
from reviews.models import ReviewEvent, ReviewItem

# --- serializers ------------------------------------------------------------------------------


class ReviewReasonSerializer(serializers.Serializer):
    reason = serializers.ChoiceField(choices=ReviewItem.Reason.choices, read_only=True)
    label = serializers.CharField(read_only=True)
    summary = serializers.CharField(read_only=True, help_text="What triage found for it.")


_DATETIME = serializers.DateTimeField(read_only=True)


def _datetime(value) -> str | None:
    """A time as the API's DateTimeFields give it (ISO 8601 in the current time zone)."""
    return None if value is None else _DATETIME.to_representation(value)


class ReviewItemSerializer(serializers.ModelSerializer):
    url = serializers.SerializerMethodField()
    reason = serializers.CharField(
        read_only=True, help_text="The most urgent of `reasons` (the item's priority is its)."
    )
    reason_label = serializers.CharField(read_only=True)
    reasons = serializers.SerializerMethodField(
        help_text="Every reason the subject raised, most urgent first: one debate whose "
        "outcome needs a human is one item, however many reasons it raised."
    )
    assignee = serializers.SlugRelatedField(
        slug_field="username",
        read_only=True,
        allow_null=True,
        help_text="Who holds it; once closed, who resolved or dismissed it.",
    )
    verdict = BlankAsNullCharField(
        help_text="Once resolved: uphold, override (also a failed debate's decision set by the "
        "analyst), keep (a contradiction's value picked) or rerun (a failed debate or run "
        "queued again); once expired: fallback (closed at its deadline, no reviewer)."
    )
    due_at = serializers.DateTimeField(
        read_only=True,
        allow_null=True,
        help_text="Its review deadline (null: none). Past it, it is marked overdue and may be "
        "closed with its reason's fallback.",
    )
    overdue_at = serializers.DateTimeField(
        read_only=True,
        allow_null=True,
        help_text="When it was found past its deadline (null: not overdue). Overdue items come "
        "first in the queue.",
    )
    decision_override = BlankAsNullCharField(help_text="The decision an override set.")

    #: Whether subjects show their detail representation.
    detail = False

    class Meta:
        model = ReviewItem
        fields = [
            "id",
            "url",
            "reason",
            "reason_label",
            "reasons",
            "status",
            "stage",
            "priority",
            "summary",
            "assignee",
            "verdict",
            "decision_override",
            "created_at",
            "claimed_at",
            "closed_at",
            "due_at",
            "overdue_at",
        ]
        read_only_fields = fields

    def get_field_names(self, declared_fields, info):
        """The item's own fields, then one per registered subject, then the detail's."""
        names = list(super().get_field_names(declared_fields, info))
        after = names.index("overdue_at") + 1
        return [*names[:after], *(s.name for s in subjects.all_subjects()), *names[after:]]

    def get_fields(self):
        """Each subject shown as its app says (null on other subjects' items)."""
        fields = super().get_fields()
        for subject in subjects.all_subjects():
            fields[subject.name] = subject.api_field(detail=self.detail)
        return fields

    def get_url(self, item: ReviewItem) -> str:
        """The item's URL, reversed once per list (a page of 100 reversed 100 URLs)."""
        link = self.context.get("review_link")
        if link is None:
            link = row_links("api:review-detail", request=self.context["request"])
            self.context["review_link"] = link
        return link(item.pk)

    def to_representation(self, item: ReviewItem) -> dict:
        """The fields above, read straight from the item: what DRF's field-by-field
        representation gives (`tests/api/test_review_representation.py` compares them), without
        its lookups and checks per field and item (most of a page of 100 items' time). The
        subjects are shown by their own serializers."""
        data = {
            "id": item.id,
            "url": self.get_url(item),
            "reason": item.reason,
            "reason_label": item.reason_label,
            "reasons": self.get_reasons(item),
            "status": item.status,
            "stage": item.stage,
            "priority": item.priority,
            "summary": item.summary,
            "assignee": item.assignee.username if item.assignee is not None else None,
            "verdict": item.verdict or None,
            "decision_override": item.decision_override or None,
            "created_at": _datetime(item.created_at),
            "claimed_at": _datetime(item.claimed_at),
            "closed_at": _datetime(item.closed_at),
            "due_at": _datetime(item.due_at),
            "overdue_at": _datetime(item.overdue_at),
        }
        fields = self.fields
        for subject in subjects.all_subjects():
            shown = getattr(item, subject.name)
            data[subject.name] = (
                None if shown is None else fields[subject.name].to_representation(shown)
            )
        return data

    @extend_schema_field(ReviewReasonSerializer(many=True))
    def get_reasons(self, item: ReviewItem) -> list[dict]:
        return [
            {"reason": reason, "label": label, "summary": summary}
            for reason, label, summary in item.all_reasons
        ]


class ReviewEventSerializer(serializers.ModelSerializer):
    actor = serializers.SlugRelatedField(
        slug_field="username", read_only=True, allow_null=True, help_text="null: the system."
    )
    from_status = BlankAsNullCharField()

    class Meta:
        model = ReviewEvent
        fields = ["action", "actor", "from_status", "to_status", "note", "data", "created_at"]
        read_only_fields = fields


class ReviewSiblingSerializer(serializers.ModelSerializer):
    url = serializers.SerializerMethodField()

    class Meta:
        model = ReviewItem
        fields = ["id", "url", "reason", "reasons", "status"]
        read_only_fields = fields

    def get_url(self, item: ReviewItem) -> str:
        return self.context["request"].build_absolute_uri(
            reverse("api:review-detail", args=[item.pk])
        )


class ReviewItemDetailSerializer(ReviewItemSerializer):
    details = serializers.JSONField(read_only=True, help_text="What triage recorded.")
    note = BlankAsNullCharField(help_text="The analyst's note on resolving or dismissing.")
    events = serializers.SerializerMethodField(
        help_text="Oldest first. While the item waits for its second review, a reviewer who has "
        "not reviewed it does not see the first review's verdict and note (`data.withheld`)."
    )
    other_items = serializers.SerializerMethodField(
        help_text="The other review items of the same debate (or contradiction run)."
    )

    class Meta(ReviewItemSerializer.Meta):
        fields = [*ReviewItemSerializer.Meta.fields, "details", "note", "events", "other_items"]
        read_only_fields = fields

    detail = True
    # One item: DRF's field-by-field representation (the list's is written out for speed).
    to_representation = serializers.ModelSerializer.to_representation

    @extend_schema_field(ReviewEventSerializer(many=True))
    def get_events(self, item: ReviewItem) -> list[dict]:
        request = self.context.get("request")
        events = selectors.events_seen_by(item, getattr(request, "user", None))
        return ReviewEventSerializer(events, many=True, context=self.context).data

    @extend_schema_field(ReviewSiblingSerializer(many=True))
    def get_other_items(self, item: ReviewItem) -> list[dict]:
        others = subjects.of(item).siblings(item)
        if others is None:
            others = selectors.other_items(item)
        return ReviewSiblingSerializer(others, many=True, context=self.context).data


ASSIGNEE_HELP = "me (mine), none (unassigned) or a username."
QUEUE_STATUSES = list(selectors.STATUS_FILTERS)


class ReviewListQuerySerializer(serializers.Serializer):
    status = FilterChoiceField(
        choices=QUEUE_STATUSES,
        default="active",
        help_text="active (open or claimed, the default), open, claimed, resolved, dismissed, "
        "expired (closed at their deadline) or all.",
    )
    reason = FilterChoiceField(choices=ReviewItem.Reason.choices, required=False)
    assignee = serializers.CharField(max_length=150, required=False, help_text=ASSIGNEE_HELP)
    overdue = serializers.BooleanField(
        required=False,
        allow_null=True,
        default=None,
        help_text="true: only items past their deadline (`overdue_at` set); false: only the "
        "others.",
    )
    page = serializers.IntegerField(min_value=1, default=1)
    page_size = serializers.IntegerField(min_value=1, max_value=100, default=50)

    def validate_assignee(self, value: str) -> str:
        if value in ("me", "none"):
            return value
        user_id = (
            get_user_model().objects.filter(username=value).values_list("pk", flat=True).first()
        )
        if user_id is None:
            raise serializers.ValidationError(
                f"No user is called '{value}'. Use me, none or an existing username."
            )
        return str(user_id)

    def filters(self) -> dict[str, str]:
        data = self.validated_data
        return {
            "status": data["status"],
            "reason": data.get("reason", ""),
            "assignee": data.get("assignee", ""),
            "overdue": {True: "yes", False: "no"}.get(data.get("overdue"), ""),
        }


class NoteRequiredField(StrictCharField):
    def __init__(self, action_name: str, **kwargs):
        message = f"A note is required to {action_name}: say why."
        super().__init__(
            max_length=5000,
            error_messages={"required": message, "blank": message},
            help_text=f"Why you {action_name} it (required).",
            **kwargs,
        )


class ReleaseSerializer(serializers.Serializer):
    note = StrictCharField(
        max_length=5000,
        required=False,
        allow_blank=True,
        default="",
        help_text="Optional: why you hand it back.",
    )


class ResolveSerializer(serializers.Serializer):
    verdict = serializers.ChoiceField(
        choices=[ReviewItem.Verdict.UPHOLD, ReviewItem.Verdict.OVERRIDE],
        help_text="uphold the machine's decision, or override it with `decision` (a failed "
        "debate has no decision to uphold: override sets the one it gets).",
        error_messages={
            "required": "Choose a verdict: uphold or override.",
            "invalid_choice": "'{input}' is not a verdict: choose uphold or override.",
        },
    )
    decision = StrictCharField(
        max_length=16,
        required=False,
        allow_blank=True,
        default="",
        help_text="With override: the decision that replaces the machine's (one of the debate's "
        "`allowed_decisions`). Leave it out to uphold.",
    )
    note = NoteRequiredField("resolve")
    stage = FilterChoiceField(
        choices=ReviewItem.Stage.choices,
        required=False,
        help_text="The review you give: first (the default), second or adjudication. An item "
        "waiting for a second review or an adjudication takes it named here (or held by you); "
        "if someone gave that review first, the answer is 409.",
    )
    confirm_veto_override = StrictBooleanField(
        required=False,
        default=False,
        help_text="Overriding a safety veto to ACT: true confirms you read what the vetoing agent "
        "saw (the 400 without it quotes it). It also takes holding the item (claim it first) and "
        "a note.",
    )

    def validate(self, attrs):
        if attrs["verdict"] == ReviewItem.Verdict.UPHOLD and attrs.get("decision"):
            raise serializers.ValidationError(
                {"decision": "Only an override takes a decision; leave it out to uphold."}
            )
        return attrs


class DismissSerializer(serializers.Serializer):
    note = NoteRequiredField("dismiss")


class RerunSerializer(serializers.Serializer):
    model = StrictCharField(
        max_length=200,
        required=False,
        allow_blank=True,
        help_text="Optional: the model to run with from now on (a failed debate's `model` "
        "option; an allowed model). Left out: keep the one it ran with.",
    )
    note = StrictCharField(
        max_length=5000,
        required=False,
        allow_blank=True,
        default="",
        help_text="Optional: why you re-run it (e.g. what was fixed).",
    )


class AssignSerializer(serializers.Serializer):
    assignee = StrictCharField(
        max_length=150,
        allow_null=True,
        help_text="The username of the reviewer it is routed to (role Reviewer), or null to "
        "leave it unassigned.",
        error_messages={"required": "Name the assignee (a username), or null for nobody."},
    )

    def validate_assignee(self, value):
        if value is None:
            return None
        user = get_user_model().objects.filter(username=value).first()
        if user is None:
            raise serializers.ValidationError(f"No user is called '{value}'.")
        return user


class DutySerializer(serializers.Serializer):
    on_duty = StrictBooleanField(
        help_text="true: new review items are assigned to you (the least loaded reviewer on "
        "duty gets each); false: they are not, and your open unclaimed items go back to be "
        "routed again."
    )
    since = serializers.DateTimeField(
        read_only=True, allow_null=True, help_text="When you went on duty."
    )
    assigned_open = serializers.IntegerField(
        read_only=True, help_text="Open items assigned to you and not claimed yet."
    )


class ReviewKappaSerializer(serializers.Serializer):
    kappa = serializers.FloatField(
        allow_null=True,
        help_text="Cohen's kappa: 1 perfect agreement, 0 chance, below 0 worse than chance; "
        "null when undefined (nothing compared, or one label throughout).",
    )
    n = serializers.IntegerField(help_text="Pairs compared.")
    observed_agreement = serializers.FloatField(
        allow_null=True, help_text="The share of pairs that agree."
    )


class RoleKappaSerializer(ReviewKappaSerializer):
    role = serializers.CharField(help_text="The agent (its name in the debates).")


class ProtocolKappaSerializer(ReviewKappaSerializer):
    protocol = serializers.CharField()


class ReviewAgreementSerializer(serializers.Serializer):
    verdicts = serializers.IntegerField(help_text="Reviewers' verdicts read (the newest).")
    limit = serializers.IntegerField(help_text="At most this many are read.")
    reviewers = ReviewKappaSerializer(
        help_text="First against second review of each item reviewed twice."
    )
    agent_roles = RoleKappaSerializer(
        many=True, help_text="Each verdict against each agent's final vote (VETO as REFUSE)."
    )
    protocols = ProtocolKappaSerializer(
        many=True, help_text="Each verdict against the machine's decision, per protocol."
    )
