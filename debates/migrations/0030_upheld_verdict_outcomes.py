from django.db import migrations

# A reviewer's verdict upholding a debate's decision amounts to that decision
# (reviews.ReviewerVerdict.outcome), for the verdicts stored before outcomes were.
BACKFILL = """
UPDATE reviews_reviewerverdict v SET outcome = d.decision
FROM reviews_reviewitem i JOIN debates_debate d ON d.id = i.debate_id
WHERE v.item_id = i.id AND v.verdict = 'uphold' AND v.outcome = '' AND d.decision <> ''
"""


class Migration(migrations.Migration):
    dependencies = [
        ("debates", "0029_figures_for_reviewers_and_operators"),
        ("reviews", "0014_double_review_and_verdict_outcomes"),
    ]

    operations = [migrations.RunSQL(BACKFILL, migrations.RunSQL.noop)]
