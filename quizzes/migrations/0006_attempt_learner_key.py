from django.db import migrations, models


class Migration(migrations.Migration):
    """Anonymous attempts keep their owner's key, now from a signed cookie, not the session."""

    dependencies = [
        ("quizzes", "0005_attempt_is_first"),
    ]

    operations = [
        migrations.RenameField(model_name="attempt", old_name="session_key", new_name="learner_key"),
        migrations.AlterField(
            model_name="attempt",
            name="learner_key",
            field=models.CharField(
                blank=True, db_index=True, max_length=40, verbose_name="anonymous learner"
            ),
        ),
    ]
