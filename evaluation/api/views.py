"""Does debate help? Staff-only figures over the API: agreement with reviewers' verdicts
(`evaluation.ground_truth`), the quality scores and the comparison with a single agent
(`evaluation.quality`) and the replay of the current decision rules (`evaluation.replay`)."""

from __future__ import annotations

from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import permissions, serializers
from rest_framework.response import Response
from rest_framework.views import APIView

from api.schema import FIELD_ERRORS, MESSAGE, UNAUTHENTICATED
from api.throttling import CreateRateThrottle
from evaluation.ground_truth import MAX_DEBATES, ground_truth_report
from evaluation.quality import quality_report
from evaluation.replay import replay_rules
from protocols import PROTOCOLS

FIGURES = "debates.view_figures"
REPLAY = "debates.replay_rules"


class IsStaff(permissions.BasePermission):
    """Figures across every user's debates: the named permission (Reviewer, Operator)."""

    permission = FIGURES
    message = "Evaluation figures need the permission to read figures across users (a role)."

    def has_permission(self, request, view):
        user = request.user
        return bool(user and user.is_authenticated and user.has_perm(self.permission))


class CanReplay(IsStaff):
    permission = REPLAY
    message = "Replaying the rules needs the permission to replay them (a role)."


class ReplayThrottle(CreateRateThrottle):
    """A replay reads every stored debate of a protocol: a few a minute per user."""

    scope = "evaluation_replay"
    rate_setting = "EVALUATION_REPLAY_RATE"


ACCESS = {
    401: UNAUTHENTICATED,
    403: OpenApiResponse(MESSAGE, description="Signed in, without the role's permission."),
}


class GroundTruthQuerySerializer(serializers.Serializer):
    since = serializers.DateTimeField(
        required=False, help_text="Debates finished at or after this time (ISO 8601)."
    )
    until = serializers.DateTimeField(
        required=False, help_text="Debates finished before this time (ISO 8601)."
    )
    protocol = serializers.ChoiceField(
        choices=sorted(n for n, c in PROTOCOLS.items() if not c.is_selector),
        required=False,
        help_text="Only debates of this protocol.",
    )
    limit = serializers.IntegerField(
        min_value=1,
        max_value=MAX_DEBATES,
        default=MAX_DEBATES,
        help_text="Read at most this many of the newest debates of the range.",
    )

    def validate(self, data):
        blank = [k for k in self.fields if k in self.initial_data and not self.initial_data[k]]
        if blank:
            raise serializers.ValidationError({k: f"{k} may not be blank." for k in blank})
        if data.get("since") and data.get("until") and data["since"] >= data["until"]:
            raise serializers.ValidationError({"until": "until must be later than since."})
        return data


class AgreementSerializer(serializers.Serializer):
    n = serializers.IntegerField(help_text="Labelled examples this figure rests on.")
    agreed = serializers.IntegerField(help_text="Of them, how many agreed with the verdict.")
    rate = serializers.FloatField(allow_null=True, help_text="agreed / n; null when n is 0.")


class GroupFiguresSerializer(serializers.Serializer):
    key = serializers.CharField(help_text="'all', a protocol, an agent's slug or a model.")
    labelled = serializers.IntegerField(help_text="Debates with a reviewers' verdict.")
    debate = AgreementSerializer(help_text="The debate's decision vs the verdict.")
    majority = AgreementSerializer(help_text="The majority vote of independent answers.")
    single_agent = AgreementSerializer(help_text="Each agent's independent answer (n: answers).")
    overrides = serializers.IntegerField(help_text="Labelled debates the reviewers overrode.")
    override_rate = serializers.FloatField(allow_null=True, help_text="overrides / labelled.")
    corrected = serializers.IntegerField(help_text="Agents the debate moved to the verdict.")
    talked_out = serializers.IntegerField(help_text="Agents the debate moved away from it.")
    decisions = serializers.IntegerField(help_text="Finished debates: n of cost and latency.")
    cost_per_decision_usd = serializers.FloatField(allow_null=True)
    latency_per_decision_s = serializers.FloatField(allow_null=True)


class GroundTruthReportSerializer(serializers.Serializer):
    since = serializers.DateTimeField(allow_null=True)
    until = serializers.DateTimeField(allow_null=True)
    protocol = serializers.CharField(allow_null=True)
    debates = serializers.IntegerField(help_text="Finished debates read.")
    limit = serializers.IntegerField()
    truncated = serializers.BooleanField(help_text="More finished in the range than the limit.")
    overall = GroupFiguresSerializer()
    by_protocol = GroupFiguresSerializer(many=True)
    by_agent = GroupFiguresSerializer(many=True)
    by_model = GroupFiguresSerializer(many=True)


class GroundTruthView(APIView):
    permission_classes = [IsStaff]

    @extend_schema(
        operation_id="evaluation_ground_truth",
        summary="Agreement of debate, majority vote and single agents with reviewers' verdicts",
        parameters=[GroundTruthQuerySerializer],
        responses={200: GroundTruthReportSerializer, 400: FIELD_ERRORS, **ACCESS},
    )
    def get(self, request):
        query = GroundTruthQuerySerializer(data=request.query_params)
        query.is_valid(raise_exception=True)
        report = ground_truth_report(**query.validated_data)
        return Response(report.as_json())


class FigureSerializer(serializers.Serializer):
    value = serializers.FloatField(allow_null=True, help_text="null when n is 0.")
    n = serializers.IntegerField(help_text="Debates (or labelled debates) it rests on.")


class QualityMeansSerializer(serializers.Serializer):
    logical_consistency = FigureSerializer()
    evidence_quality = FigureSerializer()
    argument_diversity = FigureSerializer()
    consensus_quality = FigureSerializer()
    decision_confidence = FigureSerializer()
    overall_quality = FigureSerializer()
    consensus_rate = FigureSerializer(
        help_text="Share of debates whose final positions all backed the decision."
    )


class AccuracyImprovementSerializer(FigureSerializer):
    debate = AgreementSerializer()
    single_agent = AgreementSerializer(help_text="n counts answers: one per agent per debate.")


class ReasoningDepthSerializer(FigureSerializer):
    debate_mean_words = serializers.FloatField(allow_null=True)
    single_agent_mean_words = serializers.FloatField(allow_null=True)
    single_agent_n = serializers.IntegerField()


class BiasReductionSerializer(FigureSerializer):
    debate_bias = serializers.FloatField(allow_null=True)
    single_agent_bias = serializers.FloatField(allow_null=True)
    single_agent_n = serializers.IntegerField()


class CalibrationSerializer(FigureSerializer):
    debate_brier = serializers.FloatField(allow_null=True)
    single_agent_brier = serializers.FloatField(allow_null=True)
    single_agent_n = serializers.IntegerField()


class ComparisonSerializer(serializers.Serializer):
    accuracy_improvement = AccuracyImprovementSerializer(
        help_text="Debate's agreement rate with reviewers' verdicts minus the single agents'."
    )
    reasoning_depth = ReasoningDepthSerializer(
        help_text="Distinct content words the debate considered / one agent's answer."
    )
    bias_reduction = BiasReductionSerializer(
        help_text="|single agents' caution bias| - |debate's| (positive bias: too cautious)."
    )
    confidence_calibration = CalibrationSerializer(
        help_text="Single agents' Brier score minus the debate's (positive: debate better)."
    )


class CostFigureSerializer(serializers.Serializer):
    mean_cost_usd = serializers.FloatField(allow_null=True)
    mean_tokens = serializers.FloatField(allow_null=True)
    n = serializers.IntegerField()


class CostComparisonSerializer(serializers.Serializer):
    debate = CostFigureSerializer(help_text="Per debate (n: debates).")
    single_agent = CostFigureSerializer(
        help_text="Per independent answer: one agent asked alone (n: answers)."
    )
    cost_ratio = serializers.FloatField(allow_null=True, help_text="Debate / single agent.")
    token_ratio = serializers.FloatField(allow_null=True, help_text="Debate / single agent.")


class QualityReportSerializer(serializers.Serializer):
    since = serializers.DateTimeField(allow_null=True)
    until = serializers.DateTimeField(allow_null=True)
    protocol = serializers.CharField(allow_null=True)
    debates = serializers.IntegerField(help_text="Finished debates read.")
    limit = serializers.IntegerField()
    truncated = serializers.BooleanField()
    quality = QualityMeansSerializer()
    comparison = ComparisonSerializer()
    cost = CostComparisonSerializer(help_text="Cost per debate vs a single agent's answer.")


class QualityView(APIView):
    permission_classes = [IsStaff]

    @extend_schema(
        operation_id="evaluation_quality",
        summary="The quality scores and the comparison with a single agent",
        parameters=[GroundTruthQuerySerializer],
        responses={200: QualityReportSerializer, 400: FIELD_ERRORS, **ACCESS},
    )
    def get(self, request):
        query = GroundTruthQuerySerializer(data=request.query_params)
        query.is_valid(raise_exception=True)
        return Response(quality_report(**query.validated_data).as_json())


class ReplayRequestSerializer(serializers.Serializer):
    protocol = serializers.ChoiceField(
        choices=sorted(n for n, c in PROTOCOLS.items() if not c.is_selector),
        required=False,
        default="",
        help_text="Only debates of this protocol.",
    )


class ReplayDifferenceSerializer(serializers.Serializer):
    debate_id = serializers.UUIDField()
    protocol = serializers.CharField()
    rules_version = serializers.CharField(help_text="The rules version it was decided with.")
    stored = serializers.CharField(help_text="The decision stored.")
    replayed = serializers.CharField(help_text="The current rules' decision.")


class ReplayReportSerializer(serializers.Serializer):
    checked = serializers.IntegerField(help_text="Debates replayed.")
    identical = serializers.IntegerField()
    identical_share = serializers.FloatField(allow_null=True, help_text="identical / checked.")
    skipped = serializers.IntegerField(
        help_text="Finished debates not decided from final votes (moderated) or without votes."
    )
    by_rules_version = serializers.DictField(child=serializers.IntegerField())
    differing = ReplayDifferenceSerializer(many=True)


class ReplayView(APIView):
    permission_classes = [CanReplay]
    throttle_classes = [ReplayThrottle]

    @extend_schema(
        operation_id="evaluation_replay_rules",
        summary="Re-apply the current decision rules to stored final votes (no LLM call)",
        request=ReplayRequestSerializer,
        responses={
            200: ReplayReportSerializer,
            400: FIELD_ERRORS,
            **ACCESS,
            429: OpenApiResponse(
                MESSAGE, description="Too many replays; retry after `Retry-After`."
            ),
        },
    )
    def post(self, request):
        body = ReplayRequestSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        return Response(replay_rules(protocol=body.validated_data["protocol"]).as_json())
