import re

from django.core.files.storage import default_storage
from django.core.management import call_command
from django.utils import translation

from guides.models import GuidePath
from quizzes.markup.rendering import render
from quizzes.models import Choice, ContentImage, Question, Quiz, translated_fields
from quizzes.snapshots import text_problems


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
    assert len(questions) == 9
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


def test_demo_texts_render_code_maths_and_a_diagram(db):
    """The demo shows what editors can write: highlighted code, MathML and an image with alt
    text in both languages, none of it refused by the checks an editor's text goes through."""
    call_command("loaddemo")
    accumulation = Quiz.objects.get(slug="gradient-accumulation-quiz")
    loop = accumulation.questions.get(position=3)
    for language in ("en", "fr"):
        html = render(getattr(loop, f"explanation_{language}"), language=language).html
        assert '<pre class="code-block" tabindex="0"><code>' in html
        assert (
            '<span class="n">optimizer</span><span class="o">.</span><span class="n">step' in html
        )
        assert '\n        <span class="n">optimizer</span>' in html  # Indentation kept.
        assert "<math" in render(getattr(loop, f"explanation_{language}"), language=language).html
        no_sync = accumulation.questions.get(position=5)
        assert "model.no_sync()" in getattr(no_sync, f"prompt_{language}")
        batch = accumulation.questions.get(position=2)
        assert (
            '<math display="block">'
            in render(getattr(batch, f"explanation_{language}"), language=language).html
        )
        diagram = Quiz.objects.get(slug="data-parallelism-quiz").questions.get(position=2)
        html = render(getattr(diagram, f"explanation_{language}"), language=language).html
        image = re.search(r'<img src="/media/content/[0-9a-f]{24}\.png" alt="([^"]+)">', html)
        assert image and len(image.group(1)) > 40
    for question in Question.objects.prefetch_related("choices"):
        for obj in (question, *question.choices.all()):
            for field in translated_fields(type(obj)):
                for code in ("en", "fr"):
                    source = getattr(obj, f"{field}_{code}") or ""
                    assert not text_problems(field=field, language=code, source=source)
    assert ContentImage.objects.count() == 1
    assert default_storage.exists(ContentImage.objects.get().file.name)
