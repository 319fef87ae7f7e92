from django.db import migrations, models
from django.db.models import Exists, IntegerField, OuterRef, Value
from django.db.models.functions import Coalesce


def _learner(user_id):
    return Coalesce(user_id, Value(0), output_field=IntegerField())


def mark_first_attempts(apps, schema_editor):
    """A first attempt has no earlier one by the same learner at the same quiz (one UPDATE)."""
    Attempt = apps.get_model("quizzes", "Attempt")
    earlier = Attempt.objects.alias(learner=_learner("user_id")).filter(
        quiz=OuterRef("quiz"),
        learner=_learner(OuterRef("user_id")),
        session_key=OuterRef("session_key"),
        started_at__lt=OuterRef("started_at"),
    )
    Attempt.objects.update(is_first=~Exists(earlier))


class Migration(migrations.Migration):
    dependencies = [
        ("quizzes", "0004_report_indexes"),
    ]

    operations = [
        migrations.AddField(
            model_name="attempt",
            name="is_first",
            field=models.BooleanField(default=False, editable=False, verbose_name="first attempt"),
        ),
        migrations.RunPython(mark_first_attempts, migrations.RunPython.noop),
        migrations.RemoveIndex(model_name="attempt", name="attempt_learner_started"),
    ]
