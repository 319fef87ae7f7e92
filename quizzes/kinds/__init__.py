"""The kinds of questions, one module each (docs/architecture.md, "A question kind").

`Question.kind` stores a kind's name; `get(name)` is the kind, `choices()` the field's
choices. The order of `KINDS` is the order the admin lists them in, and the order a GIFT
question's answers are offered to the kinds (the first that claims them reads them).
"""

from quizzes.kinds.base import EditedChoice, Kind, Read
from quizzes.kinds.calculated import Calculated
from quizzes.kinds.gaps import Gaps
from quizzes.kinds.matching import Matching
from quizzes.kinds.multiple import MultipleChoice
from quizzes.kinds.numerical import Numerical
from quizzes.kinds.ordering import Grading, Ordering
from quizzes.kinds.short_answer import ShortAnswer
from quizzes.kinds.single import SingleChoice
from quizzes.kinds.true_false import TrueFalse

__all__ = [
    "DEFAULT",
    "KINDS",
    "EditedChoice",
    "Grading",
    "Kind",
    "Read",
    "choices",
    "get",
    "gift_claimant",
    "moodle_reader",
]

KINDS: dict[str, Kind] = {
    kind.name: kind
    for kind in (
        SingleChoice(),
        MultipleChoice(),
        TrueFalse(),
        Numerical(),
        Calculated(),
        ShortAnswer(),
        Ordering(),
        Matching(),
        Gaps(),
    )
}
DEFAULT = SingleChoice.name


def get(name: str) -> Kind:
    """The kind named `name`; KeyError for a name that is none."""
    return KINDS[name]


def choices() -> list[tuple[str, str]]:
    """Question.kind's choices (a callable: a new kind needs no migration)."""
    return [(kind.name, kind.label) for kind in KINDS.values()]


def gift_claimant(answers: str) -> Kind | None:
    """The kind that reads a GIFT question with these answers between its braces."""
    return next((kind for kind in KINDS.values() if kind.gift_claims(answers)), None)


def moodle_reader(moodle_type: str) -> Kind | None:
    """The kind that reads Moodle XML questions of `moodle_type` (the first that names it)."""
    return next(
        (
            kind
            for kind in KINDS.values()
            if moodle_type in (kind.moodle_type, *kind.moodle_also_reads)
        ),
        None,
    )
