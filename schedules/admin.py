from datetime import timedelta
from urllib.parse import urlencode

from django import forms
from django.contrib import admin, messages
from django.core.exceptions import ValidationError
from django.urls import reverse
from django.utils import timezone
from django.utils.html import format_html, format_html_join

from agents.models import Agent
from debates.forms import option_field, option_field_name
from protocols import PROTOCOLS, OptionError, effective_options
from schedules import beat_admin, selectors, services
from schedules.models import DebateSchedule, ScheduleRun
from schedules.timing import describe

#: How far back a schedule's history link reaches (the analytics page's longest range).
HISTORY_DAYS = 3 * 366


def _in_zone(moment, schedule) -> str:
    """A time as the schedule's analyst reads it: in the schedule's time zone."""
    return timezone.localtime(moment, schedule.timezone).strftime("%a %Y-%m-%d %H:%M %Z")


class DebateScheduleForm(forms.ModelForm):
    protocol = forms.ChoiceField()
    agents = forms.MultipleChoiceField(
        required=False,
        widget=forms.CheckboxSelectMultiple,
        help_text="Leave all unticked for the protocol's default agents.",
    )
    # Filled from the one input per option below (the New debate page's), not typed as JSON.
    options = forms.JSONField(required=False, widget=forms.HiddenInput)

    class Meta:
        model = DebateSchedule
        fields = [
            "name",
            "owner",
            "enabled",
            "questions",
            "protocol",
            "agents",
            "options",
            "kind",
            "every",
            "period",
            "minute",
            "hour",
            "day_of_week",
            "day_of_month",
            "month_of_year",
            "timezone",
        ]
        widgets = {"questions": forms.Textarea(attrs={"rows": 5, "cols": 90})}

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["protocol"].choices = [
            (name, f"{cls.label} ({name})") for name, cls in sorted(PROTOCOLS.items())
        ]
        if self.instance.pk and self.instance.protocol in PROTOCOLS:
            for option, value in (self.instance.options or {}).items():
                field = option_field_name(self.instance.protocol, option)
                if field in self.fields:
                    shown = str(value).lower() if isinstance(value, bool) else value
                    self.initial[field] = shown if shown != "" else ""
        self.fields["agents"].choices = [
            (a.slug, a.name)
            for a in Agent.objects.filter(is_active=True).order_by("position", "name")
        ]

    def clean_options(self):
        return {}  # read from the option inputs in `clean`

    def _chosen_options(self, cleaned) -> dict:
        """The chosen protocol's options that were filled in, as the registry reads them;
        each bad one is said next to its input."""
        cls = PROTOCOLS.get(cleaned.get("protocol", ""))
        if cls is None:
            return {}
        given = {
            option: value
            for option in cls.options_schema
            if (value := cleaned.get(option_field_name(cls.name, option))) not in (None, "")
        }
        try:
            effective = effective_options(cls, given)
        except OptionError as exc:
            for option, message in exc.errors.items():
                field = option_field_name(cls.name, option)
                self.add_error(field if field in self.fields else None, message)
            return {}
        return {option: effective[option] for option in given}

    def clean(self):
        cleaned = super().clean()
        if any(name in self.errors for name in ("questions", "protocol", "agents")):
            return cleaned
        cleaned["options"] = self._chosen_options(cleaned)
        if self.errors:
            return cleaned
        questions = [q.strip() for q in cleaned.get("questions", "").splitlines() if q.strip()]
        try:
            services.schedule_check_debates(
                questions=questions,
                protocol=cleaned.get("protocol", ""),
                agents=list(cleaned.get("agents") or []),
                options=cleaned["options"],
            )
        except ValidationError as exc:
            for name, problems in exc.message_dict.items():
                self.add_error(name if name in self.fields else None, problems)
        return cleaned


def _option_inputs() -> dict[str, tuple[str, list[str]]]:
    """One input per option of every protocol (as on the New debate page), declared on the
    form: protocol -> (label, input names)."""
    groups = {}
    for name, cls in PROTOCOLS.items():
        names = []
        for option, spec in cls.options_schema.items():
            field = option_field(spec)
            field.label = option
            DebateScheduleForm.base_fields[option_field_name(name, option)] = field
            DebateScheduleForm.declared_fields[option_field_name(name, option)] = field
            names.append(option_field_name(name, option))
        if names:
            groups[name] = (cls.label, names)
    return groups


OPTION_INPUTS = _option_inputs()


@admin.register(DebateSchedule)
class DebateScheduleAdmin(admin.ModelAdmin):
    form = DebateScheduleForm
    list_display = (
        "name",
        "enabled",
        "when",
        "next_run",
        "last_run",
        "last_outcome",
        "owner",
        "history",
    )
    list_filter = ("enabled", "kind", "protocol")
    search_fields = ("name", "questions")
    actions = ["run_now", "pause", "resume"]
    readonly_fields = (
        "runs_as",
        "next_run",
        "last_run",
        "last_outcome",
        "history",
        "recent_runs",
        "created_at",
        "updated_at",
    )
    fieldsets = (
        (None, {"fields": ("name", "owner", "runs_as", "enabled")}),
        ("What to debate", {"fields": ("questions", "protocol", "agents", "options")}),
        *(
            (
                f"Options: {label}",
                {
                    "fields": names,
                    "classes": ("protocol-options", f"protocol-{name}"),
                    "description": "Used only when this protocol is chosen; an empty box means "
                    "the default.",
                },
            )
            for name, (label, names) in OPTION_INPUTS.items()
        ),
        (
            "When",
            {
                "fields": ("kind", "timezone"),
                "description": "Changes take effect within seconds, without a restart.",
            },
        ),
        ("Repeat every N minutes, hours or days", {"fields": (("every", "period"),)}),
        (
            "At set times (crontab, read in the time zone)",
            {
                "fields": (("minute", "hour", "day_of_week"), ("day_of_month", "month_of_year")),
            },
        ),
        (
            "History",
            {
                "fields": (
                    "next_run",
                    "last_run",
                    "last_outcome",
                    "history",
                    "recent_runs",
                    "created_at",
                    "updated_at",
                )
            },
        ),
    )

    class Media:
        js = ("schedules/protocol_options.js",)

    def get_fieldsets(self, request, obj=None):
        fieldsets = super().get_fieldsets(request, obj)
        return fieldsets if obj else fieldsets[:-1]  # no history before it exists

    def get_queryset(self, request):
        return selectors.schedule_list_queryset()

    def get_changeform_initial_data(self, request):
        return {"owner": request.user.pk, **super().get_changeform_initial_data(request)}

    def save_model(self, request, obj, form, change):
        services.schedule_save(schedule=obj, actor=request.user)

    def delete_model(self, request, obj):
        services.schedule_delete(schedule=obj, actor=request.user)

    @admin.display(description="Runs as")
    def runs_as(self, obj):
        if obj is None or obj.pk is None:
            return "you, or the owner if you may act for others"
        return obj.runs_as

    def delete_queryset(self, request, queryset):
        for schedule in queryset:
            services.schedule_delete(schedule=schedule, actor=request.user)

    @admin.display(description="When")
    def when(self, obj):
        return describe(services.timing_of(obj))

    @admin.display(description="Last run", ordering="last_fired_at")
    def last_run(self, obj):
        fired_at = getattr(obj, "last_fired_at", None)
        return _in_zone(fired_at, obj) if fired_at else "never"

    @admin.display(description="Last outcome")
    def last_outcome(self, obj):
        outcome = getattr(obj, "last_outcome", None)
        if not outcome:
            return "-"
        return f"{ScheduleRun.Outcome(outcome).label}: {obj.last_reason}"[:60]

    @admin.display(description="Next run")
    def next_run(self, obj):
        if obj.pk is None:
            return "-"
        upcoming = selectors.schedule_next_run(obj, now=timezone.now())
        if upcoming:
            return _in_zone(upcoming, obj)
        return "paused" if not obj.enabled else "not scheduled"

    @admin.display(description="History")
    def history(self, obj):
        """The analytics page filtered by this schedule, from the day it was created (at most
        the analytics page's longest range)."""
        if obj.pk is None:
            return "-"
        today = timezone.localdate()
        since = max(timezone.localdate(obj.created_at), today - timedelta(days=HISTORY_DAYS - 1))
        url = (
            reverse("analytics:page")
            + "?"
            + urlencode(
                {"schedule": obj.pk, "since": since.isoformat(), "until": today.isoformat()}
            )
        )
        return format_html('<a href="{}">Decisions, cost and failures</a>', url)

    @admin.display(description="Recent runs")
    def recent_runs(self, obj):
        if obj.pk is None:
            return "-"
        runs = selectors.schedule_recent_runs(obj)
        if not runs:
            return "none yet"
        rows = format_html_join(
            "",
            "<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
            (
                (
                    timezone.localtime(run.fired_at).strftime("%Y-%m-%d %H:%M %Z"),
                    run.get_trigger_display(),
                    run.get_outcome_display(),
                    run.reason,
                    format_html_join(
                        ", ",
                        '<a href="{}">{}</a>',
                        (
                            (
                                reverse("admin:debates_debate_change", args=[d.pk]),
                                f"{d.get_status_display()} {d.decision}".strip(),
                            )
                            for d in run.debates.all()
                        ),
                    ),
                )
                for run in runs
            ),
        )
        history = reverse("admin:schedules_schedulerun_changelist")
        history += f"?schedule__id__exact={obj.pk}"
        return format_html(
            "<table><tr><th>Fired</th><th>By</th><th>Outcome</th><th>Why</th><th>Debates</th>"
            '</tr>{}</table><p><a href="{}">All runs</a></p>',
            rows,
            history,
        )

    @admin.action(description="Run once now", permissions=["change"])
    def run_now(self, request, queryset):
        for schedule in queryset:
            run = services.schedule_fire(
                schedule_id=schedule.pk, trigger=ScheduleRun.Trigger.MANUAL
            )
            if run is None:
                continue
            level = (
                messages.SUCCESS
                if run.outcome == ScheduleRun.Outcome.CREATED
                else (messages.WARNING)
            )
            self.message_user(
                request, f"{schedule.name}: {run.get_outcome_display()}. {run.reason}", level
            )

    @admin.action(description="Pause", permissions=["change"])
    def pause(self, request, queryset):
        for schedule in queryset:
            services.schedule_set_enabled(schedule=schedule, enabled=False, actor=request.user)
        self.message_user(request, f"Paused {len(queryset)} schedule(s).")

    @admin.action(description="Resume", permissions=["change"])
    def resume(self, request, queryset):
        for schedule in queryset:
            services.schedule_set_enabled(schedule=schedule, enabled=True, actor=request.user)
        self.message_user(request, f"Resumed {len(queryset)} schedule(s).")


@admin.register(ScheduleRun)
class ScheduleRunAdmin(admin.ModelAdmin):
    list_display = ("fired_at", "schedule", "trigger", "outcome", "reason", "debate_links")
    list_filter = ("outcome", "trigger", "schedule")
    date_hierarchy = "fired_at"
    list_select_related = ("schedule",)
    readonly_fields = ("schedule", "fired_at", "trigger", "outcome", "reason", "debate_links")
    exclude = ("debates",)

    def get_queryset(self, request):
        return super().get_queryset(request).prefetch_related("debates")

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    @admin.display(description="Debates")
    def debate_links(self, obj):
        return (
            format_html_join(
                ", ",
                '<a href="{}">{}</a>',
                (
                    (reverse("admin:debates_debate_change", args=[d.pk]), d.query[:50])
                    for d in obj.debates.all()
                ),
            )
            or "-"
        )


beat_admin.register()
