"""The quiz report filtered by the site a quiz was embedded in (?site=), page and CSVs."""

import pytest
from django.test import Client
from django.urls import reverse

from quizzes.models import EmbedOrigin
from tests.embed.conftest import GUIDE, OTHER, attempt_page, embed_start
from tests.factories import choice_of, start
from tests.reports.test_reports_csv import read_csv


@pytest.fixture
def taken(embedded_quiz):
    """Three learners' first attempts, each finished: on the guide's site, on another allowed
    site, and on Quizsite itself."""
    EmbedOrigin.objects.create(origin=OTHER, quiz=embedded_quiz)
    for site in (GUIDE, OTHER, None):
        client = Client()
        attempt = (
            embed_start(client, embedded_quiz, site=site) if site else start(client, embedded_quiz)
        )
        for number in (1, 2, 3):
            url = attempt_page(attempt, number) if site else attempt.question_url(number)
            correct = site == GUIDE
            client.post(url, {"choice": choice_of(embedded_quiz, number, correct=correct).pk})
    return embedded_quiz


def test_the_report_counts_one_sites_attempts(instructor_client, taken):
    url = reverse("report_quiz", kwargs={"slug": taken.slug})
    every = instructor_client.get(url).context["summary"]
    assert every.completed == 3
    guide = instructor_client.get(url, {"site": GUIDE + "/"}).context["summary"]
    assert guide.completed == 1 and guide.mean == 100
    assert instructor_client.get(url, {"site": OTHER}).context["summary"].completed == 1
    page = instructor_client.get(url, {"site": GUIDE})
    assert f'value="{GUIDE}"' in page.content.decode()


def test_the_csvs_follow_the_site(instructor_client, taken):
    for name in ("report_attempts_csv", "report_questions_csv"):
        url = reverse(name, kwargs={"slug": taken.slug})
        every = read_csv(instructor_client.get(url))
        guide = read_csv(instructor_client.get(url, {"site": GUIDE}))
        assert every != guide, name
    rows = read_csv(
        instructor_client.get(
            reverse("report_attempts_csv", kwargs={"slug": taken.slug}), {"site": GUIDE}
        )
    )
    assert len(rows) == 2 and rows[1][5] == "100.0"
    every = read_csv(instructor_client.get(reverse("report_attempts_csv", args=[taken.slug])))
    assert every[0][9] == "Embedded in"
    assert sorted(row[9] for row in every[1:]) == ["", GUIDE, OTHER]


@pytest.mark.parametrize(
    "site", ["not a site", "https://a.example/path", "ftp://a.example", "x" * 400]
)
def test_a_bad_site_is_a_clear_400(instructor_client, taken, site):
    url = reverse("report_quiz", kwargs={"slug": taken.slug})
    assert instructor_client.get(url, {"site": site}).status_code == 400
