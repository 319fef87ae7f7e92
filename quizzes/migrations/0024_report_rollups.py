"""Report rollups kept by triggers on PostgreSQL (quizzes/reports/rollups.py), and the index
that finds a report's latest completed attempts."""

from django.db import migrations, models


def create(apps, schema_editor):
    from quizzes.reports.rollups import rebuild

    rebuild(schema_editor.connection)


def drop(apps, schema_editor):
    from quizzes.reports.rollups import drop as drop_rollups

    drop_rollups(schema_editor.connection)


class Migration(migrations.Migration):
    dependencies = [
        ("quizzes", "0023_assignments"),
    ]

    operations = [
        migrations.AddIndex(
            model_name="attempt",
            index=models.Index(fields=["quiz", "completed_at"], name="attempt_quiz_completed"),
        ),
        migrations.RunPython(create, drop, elidable=False),
    ]
