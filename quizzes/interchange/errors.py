"""The error every reader and check of the interchange raises: a file that can't be imported."""


class QuizFileError(ValueError):
    """A quiz or guides file (or an archive of them) that can't be imported.

    `errors` lists every problem found as (place, message); place says where in
    the file ("question 3, choice 2") and is empty for the file as a whole.
    """

    def __init__(self, errors: list[tuple[str, str]]):
        self.errors = errors
        super().__init__("\n".join(self.messages))

    @property
    def messages(self) -> list[str]:
        return [f"{place}: {message}" if place else message for place, message in self.errors]
