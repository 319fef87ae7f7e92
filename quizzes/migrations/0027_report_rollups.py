"""Report rollups kept by triggers on PostgreSQL (quizzes/reports/rollups.py), the index that
finds a report's latest completed attempts, and `Answer.variant`, the values a calculated
question drew for the answer's attempt (computed here for the answers there are)."""

from django.db import migrations, models


def variants_fill(apps, schema_editor):
    from quizzes.kinds.calculated import variant_key

    answers = apps.get_model("quizzes", "Answer").objects.filter(question__kind="calculated")
    batch = []
    for answer in answers.select_related("attempt", "question").iterator(chunk_size=2000):
        answer.variant = variant_key(
            answer.question.variables, answer.attempt.public_id, answer.question_id
        )
        batch.append(answer)
        if len(batch) == 2000:
            answers.model.objects.bulk_update(batch, ["variant"])
            batch = []
    answers.model.objects.bulk_update(batch, ["variant"])


def create(apps, schema_editor):
    from quizzes.reports.rollups import rebuild

    rebuild(schema_editor.connection)


def drop(apps, schema_editor):
    from quizzes.reports.rollups import drop as drop_rollups

    drop_rollups(schema_editor.connection)


class Migration(migrations.Migration):
    dependencies = [
        ("quizzes", "0026_editors_embed_origins"),
    ]

    operations = [
        migrations.AddField(
            model_name="answer",
            name="variant",
            field=models.CharField(
                blank=True, default="", editable=False, max_length=500, verbose_name="variant"
            ),
        ),
        migrations.RunPython(variants_fill, migrations.RunPython.noop, elidable=False),
        migrations.AddIndex(
            model_name="attempt",
            index=models.Index(fields=["quiz", "completed_at"], name="attempt_quiz_completed"),
        ),
        migrations.RunPython(create, drop, elidable=False),
    ]
