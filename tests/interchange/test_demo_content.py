import io
import re

from django.core.files.storage import default_storage
from django.core.management import call_command
from django.http import QueryDict
from django.utils import translation

from guides.models import GuidePath
from quizzes.kinds import calculated
from quizzes.kinds.gaps import gap_answers
from quizzes.learning.forms import AnswerForm
from quizzes.markup.rendering import render
from quizzes.models import Choice, ContentImage, Question, Quiz, translated_fields
from quizzes.snapshots import text_problems
from tests.factories import content_of


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
    assert len(questions) == 13
    kinds = ["ordering", "short_answer", "numerical", "calculated", "gaps"]
    assert [question.kind for question in questions][-5:] == kinds
    for question in questions:
        choices = list(question.choices.all())
        if question.kind == "short_answer":  # Accepted answers, then known mistakes.
            assert [choice.is_correct for choice in choices] == [True, True, False, False, False]
        elif question.kind == "gaps":  # A number, a choice, a short answer: each gap's right
            # answers, then its known mistakes.
            assert question.gaps == ["numerical", "single", "short_answer"]
            assert [(choice.gap, choice.is_correct) for choice in choices] == [
                (1, True),
                (1, False),
                (1, False),
                (2, True),
                (2, False),
                (2, False),
                (3, True),
                (3, True),
                (3, True),
                (3, False),
            ]
        else:
            assert len(choices) == 4
        assert question.choice_problems() == []
        if question.kind not in ("ordering", "short_answer", "gaps"):
            assert sum(choice.is_correct for choice in choices) == 1
        if question.kind in ("numerical", "calculated", "gaps"):  # Each known mistake explained.
            assert all(c.feedback_en and c.feedback_fr for c in choices if not c.is_correct)
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


def test_demo_gradient_accumulation_quiz_ends_with_a_calculated_question(db):
    call_command("loaddemo")
    quiz = Quiz.objects.get(slug="gradient-accumulation-quiz")
    questions = list(quiz.questions.prefetch_related("choices"))
    assert [question.kind for question in questions][-3:] == ["numerical", "ordering", "calculated"]
    calculated = questions[-1]
    assert [variable["name"] for variable in calculated.variables] == [
        "workers",
        "local_batch",
        "steps",
    ]
    assert calculated.choice_problems() == []
    for field in ("prompt_en", "prompt_fr", "explanation_en", "explanation_fr"):
        assert "{workers}" in getattr(calculated, field)
    assert all(choice.feedback_fr for choice in calculated.choices.all() if not choice.is_correct)


def test_each_demo_quiz_has_a_numerical_an_ordering_and_a_calculated_question(db):
    call_command("loaddemo")
    for quiz in Quiz.objects.all():
        kinds = set(quiz.questions.values_list("kind", flat=True))
        assert {"numerical", "ordering", "calculated"} <= kinds, quiz.slug


def test_demo_ring_all_reduce_question_draws_whole_megabytes(db):
    """The data parallelism quiz's calculated question: 2 (W − 1) / W of the gradients, a
    whole number of MB on every variant, so that a learner types it exactly."""
    call_command("loaddemo")
    question = Quiz.objects.get(slug="data-parallelism-quiz").questions.get(kind="calculated")
    variables, _problems = calculated.parse_variables(question.variables)
    right = question.choices.get(is_correct=True).text_en
    results = [calculated.evaluate(right, values) for values in calculated.variants(variables)]
    assert len(results) == 16 and all(result == int(result) for result in results)
    assert calculated.evaluate(right, {"workers": 4, "gradients": 400}) == 600


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


def _gaps_answered(question, posted: list[str], lang: str) -> list:
    """Each gap of an answer posted in `lang` to a gaps question (its QuestionContent), graded."""
    data = QueryDict(mutable=True)
    data.setlist("choice", posted)
    with translation.override(lang):
        form = AnswerForm(
            data, choices=list(question.choices), kind=question.type, question=question
        )
        assert form.is_valid(), form.errors
        picked = [choice.pk for choice in form.cleaned_data["choices"]]
        return gap_answers(question, form.cleaned_data["response"], picked)


def test_demo_gaps_question_takes_its_answers_and_explains_each_known_mistake(db):
    """The data parallelism quiz's gaps question: the global batch, the all-reduce and the
    replica, right in French with the accent left out; each gap's known mistake explained."""
    call_command("loaddemo", stdout=io.StringIO())
    content = content_of(Quiz.objects.get(slug="data-parallelism-quiz"))
    (question,) = [question for question in content.questions if question.kind == "gaps"]
    pick = {str(choice.text): str(choice.pk) for choice in question.choices if choice.gap == 2}
    right = _gaps_answered(question, ["256", pick["all-reduce"], "Replique"], "fr")
    assert [gap.score for gap in right] == [1, 1, 1]
    wrong = _gaps_answered(question, ["32", pick["all-gather"], "shards"], "en")
    assert [gap.score for gap in wrong] == [0, 0, 0]
    assert [str(gap.matched.text) for gap in wrong] == ["32", "all-gather", "*shard*"]
    with translation.override("fr"):
        assert all(str(gap.matched.feedback) for gap in wrong)
