from django.core.management import call_command
from django.utils import translation

from guides.models import GuidePath
from quizzes.models import Choice, Question, Quiz


def test_demo_loader_run_twice_adds_no_duplicates(db):
    call_command("loaddemo")
    counts = (GuidePath.objects.count(), Quiz.objects.count(), Question.objects.count())
    call_command("loaddemo")
    assert counts == (GuidePath.objects.count(), Quiz.objects.count(), Question.objects.count())
    assert counts[0] >= 2 and counts[1] >= 2


def test_demo_data_parallelism_quiz_is_complete_in_both_languages(db):
    call_command("loaddemo")
    quiz = Quiz.objects.get(slug="data-parallelism-quiz")
    assert quiz.level == "intermediate"
    assert list(quiz.guide_paths.values_list("slug", flat=True)) == ["data-parallelism"]
    questions = list(quiz.questions.prefetch_related("choices"))
    assert len(questions) == 8
    for question in questions:
        choices = list(question.choices.all())
        assert len(choices) == 4
        assert sum(choice.is_correct for choice in choices) == 1
        for field in ("prompt_en", "prompt_fr", "explanation_en", "explanation_fr"):
            assert getattr(question, field), f"{question.position}: {field} is empty"
        for choice in choices:
            assert choice.text_en and choice.text_fr
    with translation.override("fr"):
        assert quiz.title == "Quiz sur le parallélisme des données"


def test_demo_french_avoids_the_seed_mistranslations(db):
    call_command("loaddemo")
    french = " ".join(
        f"{c.text_fr} {c.feedback_fr} {c.question.prompt_fr} {c.question.explanation_fr}"
        for c in Choice.objects.select_related("question")
    ).lower()
    for wrong in ("dégradé", "calque", " formation"):
        assert wrong not in french
    assert "gradients" in french and "couches" in french and "entraînement" in french


def test_demo_second_guide_path_has_a_quiz_of_five_or_more(db):
    call_command("loaddemo")
    other = GuidePath.objects.exclude(slug="data-parallelism").get()
    quiz = other.quizzes.get()
    assert quiz.is_published and quiz.questions.count() >= 5
