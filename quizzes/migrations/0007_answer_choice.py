import django.db.models.deletion
from django.db import migrations, models
from django.db.models import Count, OuterRef, Subquery


def copy_single_picks(apps, schema_editor):
    """Every answer that picked one choice gets it on the answer too (one UPDATE)."""
    Answer = apps.get_model("quizzes", "Answer")
    AnswerChoice = apps.get_model("quizzes", "AnswerChoice")
    single = (
        AnswerChoice.objects.values("answer").annotate(n=Count("pk")).filter(n=1).values("answer")
    )
    pick = AnswerChoice.objects.filter(answer=OuterRef("pk")).values("choice")[:1]
    Answer.objects.filter(pk__in=single).update(choice=Subquery(pick))


class Migration(migrations.Migration):
    dependencies = [
        ("quizzes", "0006_attempt_learner_key"),
    ]

    operations = [
        migrations.AddField(
            model_name="answer",
            name="choice",
            field=models.ForeignKey(
                blank=True,
                null=True,
                on_delete=django.db.models.deletion.PROTECT,
                related_name="+",
                to="quizzes.choice",
                verbose_name="chosen choice",
            ),
        ),
        migrations.RunPython(copy_single_picks, migrations.RunPython.noop, elidable=True),
    ]
