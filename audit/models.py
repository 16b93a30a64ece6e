from django.db import models
from django.utils import timezone


class AuditEntry(models.Model):
    """One staff action: who did what to which subject, when, from what to what.

    Append-only: the database refuses UPDATE and DELETE on this table (a trigger, see the
    migration). The actor and the subject are kept as ids and names, not foreign keys, so an
    entry outlives the user who acted and the thing acted on."""

    at = models.DateTimeField(default=timezone.now, db_index=True)
    actor_id = models.BigIntegerField(null=True, blank=True, db_index=True)
    actor_name = models.CharField(max_length=150, blank=True, help_text="Empty: the system.")
    action = models.CharField(max_length=60, db_index=True, help_text="e.g. token.issue.")
    subject_type = models.CharField(max_length=100, db_index=True, help_text="app_label.model")
    subject_id = models.CharField(max_length=64, db_index=True)
    subject_repr = models.CharField(max_length=200)
    changes = models.JSONField(
        default=dict, blank=True, help_text='{"field": {"from": ..., "to": ...}}'
    )
    note = models.TextField(blank=True)

    class Meta:
        ordering = ["-at", "-id"]
        verbose_name = "audit entry"
        verbose_name_plural = "audit entries"
        indexes = [models.Index(fields=["subject_type", "subject_id", "-at"])]

    def __str__(self):
        return (
            f"{self.at:%Y-%m-%d %H:%M:%S} {self.actor_name or 'system'} {self.action} "
            f"{self.subject_type}#{self.subject_id}"
        )
