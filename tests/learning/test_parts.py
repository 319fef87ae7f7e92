"""Every kept part (quizzes/learning/parts.py) shows all its fields and reads nothing else: its
fields being its key, a part can then never give one learner a part another should see.

The parts are collected as the site renders them, for a learner going through every state a
part has: a quiz not started, in progress, failed, passed, without questions, an editor's
preview; questions open, refused, answered right and wrong, single and multiple choice and
numerical (a known mistake, a number that matches none),
closed by a new start or by unpublishing, in a practice attempt; results of each kind, with
only the mistakes; in English and in French, signed in and out, with a message to see.
"""

import dataclasses
from datetime import timedelta

import pytest
from django.contrib.auth.models import User
from django.core.cache import caches
from django.template import engines
from django.template.base import FilterExpression, Node, NodeList, TokenType, Variable
from django.template.defaulttags import CsrfTokenNode, ForNode, WithNode
from django.template.loader_tags import ExtendsNode, IncludeNode
from django.template.smartif import TokenBase
from django.templatetags.i18n import BlockTranslateNode
from django.test import Client
from django.utils import timezone

from quizzes import kinds
from quizzes.classes.services import class_create, class_join
from quizzes.learning import parts as parts_module
from quizzes.learning.parts import PARTS, Part, StepPart, Unkeepable, canonical
from quizzes.models import Assignment, Attempt, EmbedOrigin, ReviewShown
from tests.embed.conftest import GUIDE, embed_start
from tests.embed.conftest import results_page as embed_results_page
from tests.factories import (
    answer,
    answer_number,
    answer_picks,
    choice_of,
    make_multiple,
    make_numerical,
    make_quiz,
    make_staff,
    question_url,
    results_url,
    start,
)

# What a template may read that is no field: Django's own (True, False and None are in every
# context).
BUILTINS = frozenset({"csrf_token", "forloop", "block", "True", "False", "None"})


def _drive(guide) -> None:
    """A tour of the site through every state of every part."""
    quiz = make_quiz(questions=3, guide=guide)
    make_multiple(quiz, 3)
    bare = make_quiz(slug="bare", questions=0, french=False)
    draft = make_quiz(slug="draft", questions=1, published=False)
    learner = Client()
    for lang in ("en", "fr"):
        learner.get(f"/{lang}/quizzes/{quiz.slug}/")
    learner.get(bare.get_absolute_url())

    attempt = start(learner, quiz)
    learner.get(question_url(attempt, 1))
    learner.post(question_url(attempt, 1), {})  # No choice: refused.
    picks = [choice_of(quiz, 1, correct=True).pk, choice_of(quiz, 1, correct=False).pk]
    learner.post(question_url(attempt, 1), {"choice": picks})  # Two for one: refused.
    answer(learner, attempt, 1, choice_of(quiz, 1, correct=True))
    learner.get(question_url(attempt, 1))
    answer(learner, attempt, 1, choice_of(quiz, 1, correct=True))  # Again: a notice.
    learner.get(quiz.get_absolute_url())  # In progress.
    answer(learner, attempt, 2, choice_of(quiz, 2, correct=False))
    learner.get(question_url(attempt, 2))
    for lang in ("en", "fr"):
        learner.get(question_url(attempt, 3, lang))  # Multiple choice.
    learner.post(question_url(attempt, 3), {})
    answer_picks(learner, attempt, 3, list(quiz.questions.get(position=3).choices.all()[:2]))
    for lang in ("en", "fr"):
        learner.get(question_url(attempt, 3, lang))
        learner.get(results_url(attempt, lang))
    learner.get(results_url(attempt) + "?mistakes=1")
    learner.get(quiz.get_absolute_url())  # Done, not passed.
    learner.post(f"/en/attempts/{attempt.public_id}/practice/")
    practice = quiz.attempts.order_by("-pk").first()
    learner.get(question_url(practice, 1))
    answer(learner, practice, 1, choice_of(quiz, 2, correct=True))
    learner.get(question_url(practice, 1))
    learner.get(results_url(practice))

    passing = Client()
    passed = start(passing, quiz)
    for number in (1, 2):
        answer(passing, passed, number, choice_of(quiz, number, correct=True))
    answer_picks(passing, passed, 3, list(quiz.questions.get(position=3).choices.all()[:2]))
    passing.get(results_url(passed))
    passing.get(results_url(passed) + "?mistakes=1")  # No mistakes.
    again = start(passing, quiz)
    passing.get(quiz.get_absolute_url())  # Passed, and in progress again.

    leaving = Client()
    left = start(leaving, quiz)
    answer(leaving, left, 1, choice_of(quiz, 1, correct=True))
    start(leaving, quiz, start_over=True)
    leaving.get(question_url(left, 2))  # Closed: started over.

    signed_in = Client()
    signed_in.force_login(User.objects.create_user("ada", password="long-pass-phrase-9"))
    signed_in.get(quiz.get_absolute_url())
    form = {"attempts": "keep", "password": "long-pass-phrase-9"}
    signed_in.post("/en/accounts/delete/", form)
    signed_in.get(quiz.get_absolute_url())  # Signed out, with a message.
    editor = Client()
    editor.force_login(make_staff("editor", "Editors"))
    editor.get(draft.get_absolute_url())

    preview = start(editor, draft)  # An editor's preview, of another quiz.
    editor.get(question_url(preview, 1))
    answer(editor, preview, 1, choice_of(draft, 1, correct=True))
    editor.get(results_url(preview))

    numbers = make_quiz(slug="numbers", questions=2, guide=guide)
    make_numerical(numbers, 1)
    counting = Client()
    counted = start(counting, numbers)
    for lang in ("en", "fr"):
        counting.get(question_url(counted, 1, lang))  # A number to type.
    answer_number(counting, counted, 1, "NaN")  # Refused, typed again.
    answer_number(counting, counted, 1, "1,024")
    answer(counting, counted, 2, choice_of(numbers, 2, correct=True))
    for lang in ("en", "fr"):
        counting.get(question_url(counted, 1, lang))
        counting.get(results_url(counted, lang))
    missing = Client()
    missed = start(missing, numbers)
    answer_number(missing, missed, 1, "32", "fr")  # A known mistake, with its feedback.
    missing.get(question_url(missed, 1, "fr"))
    answer_number(missing, missed, 1, "7")

    EmbedOrigin.objects.create(origin=GUIDE)
    framed = Client()
    in_frame = embed_start(framed, quiz)
    for number in (1, 2):
        answer(framed, in_frame, number, choice_of(quiz, number, correct=True))
    answer_picks(framed, in_frame, 3, list(quiz.questions.get(position=3).choices.all()[:2]))
    framed.get(embed_results_page(in_frame))  # Retry says the site that framed it.

    _drive_assignment(guide)

    quiz.is_published = False
    quiz.save()
    passing.get(question_url(again, 1))  # Closed: unpublished.


def _drive_assignment(guide) -> None:
    """A class's timed assignment whose review never shows: an answer recorded without its
    verdict, then the time running out, and the results as it stood."""
    timed = make_quiz(slug="timed", questions=2, guide=guide)
    teacher = make_staff("teacher", "Instructors")
    klass = class_create(name="A class", instructor=teacher)
    taker = User.objects.create_user("grace", password="long-pass-phrase-9")
    class_join(klass=klass, learner=taker)
    assignment = Assignment.objects.create(
        klass=klass, quiz=timed, time_limit=timedelta(minutes=5), review=ReviewShown.NEVER
    )
    taking = Client()
    taking.force_login(taker)
    taking.post(f"/en/assignments/{assignment.pk}/start/")
    attempt = Attempt.objects.get(assignment=assignment)
    taking.get(question_url(attempt, 1))
    answer(taking, attempt, 1, choice_of(timed, 1, correct=True))
    taking.get(question_url(attempt, 1))  # Recorded, its review hidden.
    Attempt.objects.filter(pk=attempt.pk).update(deadline=timezone.now())
    taking.get(results_url(attempt))  # Its time ran out.


@pytest.fixture
def parts(guide, monkeypatch) -> dict[type[Part], list[Part]]:
    """Every part the tour renders or takes from the cache, by class, each state once (as
    the view made it, not as kept: a part holding others is kept with marks in their
    place)."""
    seen: list[Part] = []
    kept_html, render = parts_module._kept_html, Part.render

    def recording_kept(part):
        seen.append(part)
        return kept_html(part)

    def recording_render(self):
        seen.append(self)
        return render(self)

    caches["default"].clear()
    caches["pages"].clear()
    with monkeypatch.context() as patched:
        patched.setattr(parts_module, "_kept_html", recording_kept)
        patched.setattr(Part, "render", recording_render)
        _drive(guide)
    by_class: dict[type[Part], list[Part]] = {cls: [] for cls in PARTS}
    for part in seen:
        states = by_class[type(part)]
        if not any(_same(part, state) for state in states):
            states.append(part)
    return by_class


def _same(one, other) -> bool:
    try:
        return canonical(one) == canonical(other)
    except Unkeepable:  # Never kept: only the very same value is the same.
        return one is other


def _a_change_shows(states: list[Part], name: str) -> bool:
    """Whether, in some state, the field `name` set to its value in another state changes
    the HTML, and the key (for a part that can be kept)."""
    for base in states:
        html = base.render()
        for other in states:
            value = getattr(other, name)
            if _same(value, getattr(base, name)):
                continue
            changed = dataclasses.replace(base, **{name: value})
            if changed.render() == html:
                continue
            try:
                assert changed.key != base.key, f"{name} changes the HTML, not the key"
            except Unkeepable:
                pass
            return True
    return False


@pytest.mark.parametrize("part_class", PARTS, ids=lambda cls: cls.name)
def test_every_field_of_a_part_shows(parts, part_class):
    states = parts[part_class]
    assert len(states) >= 2, f"the tour renders {part_class.__name__} in one state only"
    unseen = [
        field.name
        for field in dataclasses.fields(part_class)
        if not _a_change_shows(states, field.name)
    ]
    assert not unseen, f"{part_class.__name__} never shows its fields {unseen}"


@pytest.mark.parametrize("part_class", PARTS, ids=lambda cls: cls.name)
def test_a_kept_part_is_what_it_renders_whatever_field_changes(parts, part_class):
    """As kept (its shared copy's HTML from the cache, the parts it holds put in, its choices
    moved into order), a part is what it renders anew, in each state and with any field set
    to its value in another state, after every other part was kept: a kept part whose key
    missed one of its inputs would give another's HTML."""
    states = parts[part_class]
    for base in states:
        for other in states:
            for field in dataclasses.fields(part_class):
                changed = dataclasses.replace(base, **{field.name: getattr(other, field.name)})
                if not _consistent(changed):
                    continue
                try:
                    parts_module.kept(changed)  # Keyable?
                except Unkeepable:
                    continue
                assert parts_module.kept(changed) == parts_module.made(changed), field.name


def _consistent(part: Part) -> bool:
    """Whether a part's choices, if it has any, are its question's, and its picks theirs:
    only then can it be arranged into their order."""
    choices = {choice.pk for choice in getattr(part, "choices", ())}
    if choices and choices != {choice.pk for choice in part.question.choices}:
        return False
    return {choice.pk for choice in getattr(part, "picked", ())} <= choices or not choices


SENTINEL = "NOT-A-FIELD[%s]"


def test_a_part_renders_only_what_it_has(parts, settings):
    """A variable a template prints that its part lacks would show as the sentinel."""
    options = settings.TEMPLATES[0]["OPTIONS"] | {"string_if_invalid": SENTINEL}
    settings.TEMPLATES = [settings.TEMPLATES[0] | {"OPTIONS": options}]
    caches["default"].clear()  # The parts inside the results render again.
    for part_class, states in parts.items():
        for part in states:
            html = part.render()
            assert "NOT-A-FIELD[" not in html, (part_class.__name__, html)


def _template_reads(name: str, defined: frozenset[str] = frozenset()) -> set[str]:
    return _reads(engines["django"].engine.get_template(name).nodelist, defined)


def _reads(node, defined: frozenset[str]) -> set[str]:
    """The names a compiled template reads from its context, but `defined` (loop, `with`,
    `as` names), through its includes and what it extends."""
    if isinstance(node, NodeList | list | tuple):
        found, names = set(), set(defined)
        for item in node:
            found |= _reads(item, frozenset(names))
            if getattr(item, "asvar", None):  # {% url … as x %}, {% translate … as x %}
                names.add(item.asvar)
            if getattr(item, "target_var", None):  # A simple tag's {% … as x %}.
                names.add(item.target_var)
        return found
    if isinstance(node, dict):
        return _reads(list(node.values()), defined)
    if isinstance(node, Variable):
        top = node.lookups and node.lookups[0]
        return {top} if top and top not in defined else set()
    if isinstance(node, FilterExpression):
        found = _reads(node.var, defined)
        for _filter, args in node.filters:
            found |= _reads([arg for lookup, arg in args if lookup], defined)
        return found
    if isinstance(node, ForNode):
        inner = defined | set(node.loopvars) | {"forloop"}
        return (
            _reads(node.sequence, defined)
            | _reads(node.nodelist_loop, inner)
            | _reads(node.nodelist_empty, defined)
        )
    if isinstance(node, WithNode):
        inner = defined | set(node.extra_context)
        return _reads(node.extra_context, defined) | _reads(node.nodelist, inner)
    if isinstance(node, BlockTranslateNode):
        inner = defined | set(node.extra_context) | {node.countervar or ""}
        found = _reads(node.extra_context, defined) | _reads(node.counter, defined)
        for token in node.singular + (node.plural or []):
            if token.token_type == TokenType.VAR and token.contents not in inner:
                found.add(token.contents)
        return found
    if isinstance(node, IncludeNode):
        inner = (frozenset() if node.isolated_context else defined) | set(node.extra_context)
        found = _reads(node.extra_context, defined) | _reads(node.template, defined)
        for name in _included(node.template):
            found |= _template_reads(name, inner)
        return found
    if isinstance(node, ExtendsNode):
        return _reads(node.nodelist, defined) | _template_reads(node.parent_name.var, defined)
    if isinstance(node, CsrfTokenNode):
        return {"csrf_token"} - defined
    if isinstance(node, Node | TokenBase):  # Any other tag, and {% if %}'s conditions.
        return _reads([vars(node)[name] for name in vars(node) if name != "token"], defined)
    return set()


def _included(template: FilterExpression) -> set[str]:
    """The templates an `{% include %}` may include: the one it names or, for a question
    kind's (`question.type.input_template`), that of every kind."""
    if not isinstance(template.var, Variable):
        return {template.var}
    attribute = template.var.lookups[-1]
    return {getattr(kind, attribute) for kind in kinds.KINDS.values()}


def test_the_reads_of_a_template_are_found():
    """The walk of the next test, checked on a template of every construct it knows."""
    engine = engines["django"].engine
    template = engine.from_string(
        "{% load i18n %}{% if a.x or b %}{{ c.d|default:e }}{% endif %}"
        "{% for f in g %}{{ f }}{{ forloop.counter }}{% empty %}{{ f }}{% endfor %}"
        "{% with h=i %}{{ h }}{% endwith %}{% url 'home' as j %}{{ j }}"
        "{% blocktranslate trimmed with k=l count counter=m %}{{ k }} {{ n }}"
        "{% plural %}{{ counter }}{% endblocktranslate %}"
        '{% include "quizzes/_explanation.html" with question=o %}{% csrf_token %}'
    )
    found = _reads(template.nodelist, frozenset())
    assert found == {"a", "b", "c", "e", "g", "f", "i", "l", "m", "n", "o", "csrf_token"}


@pytest.mark.parametrize("part_class", PARTS, ids=lambda cls: cls.name)
def test_a_part_s_template_reads_only_its_fields(part_class):
    """Even in an `{% if %}`, where a missing variable prints nothing: each name its
    template (with its includes and base.html) reads is a field of the part."""
    fields = {field.name for field in dataclasses.fields(part_class)}
    read = _template_reads(part_class.template)
    assert read - fields - BUILTINS == set()


def test_the_choice_inputs_read_checked_from_their_part():
    """Unbound, the inputs once read `checked` from nowhere; it is a field now, empty."""
    assert "checked" in _template_reads("quizzes/_choice_inputs.html")
    assert StepPart.__dataclass_fields__["checked"].default == ()
