"""The classes' pages: who sees what (object-level permission), joining by link and by
code, hostile input; every refusal a clear 4xx that changes nothing."""

from urllib.parse import urlencode

import pytest
from django.conf import settings
from django.contrib.auth.models import User
from django.test import Client

from quizzes.classes.services import class_create, class_join, class_joining_set
from quizzes.models import Class, Membership
from tests.classes.conftest import make_learner, signed_in
from tests.factories import make_staff


def detail_url(klass: Class, lang: str = "en") -> str:
    return f"/{lang}/classes/{klass.pk}/"


def remove_url(klass: Class, learner: User) -> str:
    return f"/en/classes/{klass.pk}/learners/{learner.pk}/remove/"


def post_raw(client: Client, url: str, fields: dict[str, str]):
    """A form POST as a browser sends it, lone surrogates as their (invalid) UTF-8 bytes."""
    body = urlencode(fields, encoding="utf-8", errors="surrogatepass")
    return client.post(url, body, content_type="application/x-www-form-urlencoded")


# Making classes


def test_an_instructor_makes_a_class_and_lands_on_its_roster(teacher, instructor):
    response = teacher.post("/en/classes/", {"name": "Spring cohort"})
    klass = Class.objects.get()
    assert response.status_code == 302 and response["Location"] == detail_url(klass)
    page = teacher.get(response["Location"]).content.decode()
    assert "Spring cohort" in page and klass.code_shown in page
    assert f"{settings.SITE_URL}/en/join/{klass.token}/" in page
    assert "Nobody has joined yet." in page
    assert list(klass.instructors.all()) == [instructor]


def test_the_join_link_is_on_the_site_s_address_whatever_host_the_request_named(
    teacher, klass, settings
):
    settings.SITE_URL = "https://quiz.example.org"
    settings.ALLOWED_HOSTS = ["quiz.example.org", "evil.example.com"]
    page = teacher.get(detail_url(klass), HTTP_HOST="evil.example.com").content.decode()
    assert f'value="https://quiz.example.org/en/join/{klass.token}/"' in page
    assert '<a href="https://quiz.example.org/en/join/">' in page
    assert "evil.example.com/en/join" not in page


def test_joining_leads_to_my_progress_and_the_header_keeps_its_link(klass):
    learner = make_learner("ada")
    client = signed_in(learner)
    response = client.post(klass.join_url())
    assert response["Location"] == "/en/progress/"
    client.get(response["Location"])
    assert ">My progress</a>" in client.get("/en/").content.decode()
    other = Client()  # Signing in on another device, with no attempt yet.
    other.post("/en/accounts/login/", {"username": "ada", "password": "not-used"})
    assert ">My progress</a>" in other.get("/en/").content.decode()


def test_the_class_list_shows_each_class_its_learners_and_joining(teacher, instructor, klass):
    closed = class_create(name="Autumn", instructor=instructor)
    class_joining_set(klass=closed, joining_open=False)
    class_join(klass=klass, learner=make_learner("ada"))
    class_join(klass=klass, learner=make_learner("bob"))
    class_create(name="Someone else's", instructor=make_staff("other", "Instructors"))
    page = teacher.get("/en/classes/").content.decode()
    assert "Autumn" in page and klass.name in page and "Someone else" not in page
    assert '<td class="number">2</td>' in page and '<td class="number">0</td>' in page
    assert "<td>open</td>" in page and "<td>closed</td>" in page


@pytest.mark.parametrize(
    ("name", "message"),
    [
        ("", "This field is required."),
        ("   ", "This field is required."),
        ("x" * 10_000, "Ensure this value has at most 200 characters (it has 10000)."),
        ("a\x00b", "The site could not understand this request"),  # The middleware's 400.
    ],
)
def test_a_bad_class_name_is_refused_and_nothing_made(teacher, name, message):
    response = post_raw(teacher, "/en/classes/", {"name": name})
    assert response.status_code == 400
    assert message in response.content.decode()
    assert not Class.objects.exists()


def test_a_lone_surrogate_in_a_name_is_kept_as_replacement_characters(teacher):
    response = post_raw(teacher, "/en/classes/", {"name": "a\ud800"})
    assert response.status_code == 302  # Its bytes are invalid UTF-8, each read as U+FFFD.
    assert Class.objects.get().name == "a\ufffd\ufffd\ufffd"


def test_editors_and_learners_cannot_make_classes(client, editor):
    for user in (editor, make_learner("ada")):
        client.force_login(user)
        assert client.get("/en/classes/").status_code == 403
        assert client.post("/en/classes/", {"name": "Mine"}).status_code == 403
    assert not Class.objects.exists()


def test_signed_out_the_classes_ask_to_sign_in(client, klass):
    for url in ("/en/classes/", detail_url(klass), "/en/join/", klass.join_url()):
        response = client.get(url)
        assert response.status_code == 302
        assert response["Location"] == f"/en/accounts/login/?next={url}"


def test_the_header_links_instructors_to_their_classes(teacher, client):
    assert 'href="/en/classes/"' in teacher.get("/en/").content.decode()
    learner = signed_in(make_learner("ada"))
    assert 'href="/en/classes/"' not in learner.get("/en/").content.decode()


# Who sees a class


def test_only_the_classes_instructor_or_a_superuser_sees_it(klass):
    member = make_learner("ada")
    class_join(klass=klass, learner=member)
    strangers = [make_staff("other", "Instructors"), member, make_learner("bob")]
    for user in strangers:
        client = signed_in(user)
        assert client.get(detail_url(klass)).status_code == 404
        assert client.get(remove_url(klass, member)).status_code == 404
    admin = User.objects.create_superuser("root", password="not-used")
    page = signed_in(admin).get(detail_url(klass))
    assert page.status_code == 200 and "ada" in page.content.decode()


def test_another_instructor_changes_nothing_of_a_class(klass):
    member = make_learner("ada")
    class_join(klass=klass, learner=member)
    other = signed_in(make_staff("other", "Instructors"))
    assert other.post(f"/en/classes/{klass.pk}/joining/", {"joining": "closed"}).status_code == 404
    assert other.post(remove_url(klass, member)).status_code == 404
    klass.refresh_from_db()
    assert klass.joining_open and klass.memberships.count() == 1


@pytest.mark.parametrize("class_id", ["0", "9223372036854775808", "1" + "0" * 50])
def test_a_class_id_out_of_range_is_not_found(teacher, class_id):
    assert teacher.get(f"/en/classes/{class_id}/").status_code == 404


# The roster


def test_the_roster_lists_each_learner_with_when_they_joined(teacher, klass):
    for name in ("zoe", "ada"):
        class_join(klass=klass, learner=make_learner(name))
    page = teacher.get(detail_url(klass)).content.decode()
    assert page.index(">ada<") < page.index(">zoe<")
    assert page.count("<time datetime=") == 2
    assert "Roster: 2 learners" in page


def test_closing_and_reopening_joining(teacher, klass):
    response = teacher.post(f"/en/classes/{klass.pk}/joining/", {"joining": "closed"}, follow=True)
    assert "Joining is closed" in response.content.decode()
    assert klass.code_shown not in response.content.decode()
    klass.refresh_from_db()
    assert not klass.joining_open
    teacher.post(f"/en/classes/{klass.pk}/joining/", {"joining": "open"})
    klass.refresh_from_db()
    assert klass.joining_open


@pytest.mark.parametrize("value", ["", "maybe", "a\x00b"])
def test_a_bad_joining_value_changes_nothing(teacher, klass, value):
    assert teacher.post(f"/en/classes/{klass.pk}/joining/", {"joining": value}).status_code == 400
    klass.refresh_from_db()
    assert klass.joining_open


def test_removing_a_learner_asks_first_then_keeps_their_records(teacher, klass):
    learner = make_learner("ada")
    class_join(klass=klass, learner=learner)
    asked = teacher.get(remove_url(klass, learner))
    assert asked.status_code == 200
    assert "Their attempts and answers stay recorded." in asked.content.decode()
    assert Membership.objects.count() == 1
    response = teacher.post(remove_url(klass, learner), follow=True)
    assert response.redirect_chain == [(detail_url(klass), 302)]
    assert "ada is no longer in this class; their attempts stay." in response.content.decode()
    assert not Membership.objects.exists() and User.objects.filter(username="ada").exists()
    assert teacher.post(remove_url(klass, learner)).status_code == 404  # Already gone.


# Joining by the link


def test_a_learner_joins_by_the_link(klass):
    learner = signed_in(make_learner("ada"))
    page = learner.get(klass.join_url())
    assert page.status_code == 200 and klass.name in page.content.decode()
    assert not Membership.objects.exists()  # GET only shows.
    response = learner.post(klass.join_url(), follow=True)
    assert response.redirect_chain == [("/en/progress/", 302)]
    html = response.content.decode()
    assert f"You joined {klass.name}." in html and 'id="my-classes"' in html
    assert Membership.objects.filter(klass=klass, learner__username="ada").count() == 1
    again = learner.post(klass.join_url(), follow=True)
    assert f"You are already in {klass.name}." in again.content.decode()
    assert Membership.objects.count() == 1
    assert "You are in this class." in learner.get(klass.join_url()).content.decode()


def test_an_anonymous_learner_signs_in_and_comes_back_to_the_link(client, klass):
    make_learner("ada")
    response = client.get(klass.join_url(), follow=True)
    assert response.redirect_chain[-1][0].startswith("/en/accounts/login/?next=")
    signed = client.post(
        response.redirect_chain[-1][0],
        {"username": "ada", "password": "not-used", "next": klass.join_url()},
    )
    assert signed["Location"] == klass.join_url()


def test_a_closed_class_refuses_newcomers_with_a_clear_page(klass):
    member = signed_in(make_learner("ada"))
    class_join(klass=klass, learner=User.objects.get(username="ada"))
    class_joining_set(klass=klass, joining_open=False)
    newcomer = signed_in(make_learner("bob"))
    for response in (newcomer.get(klass.join_url()), newcomer.post(klass.join_url())):
        assert response.status_code == 403
        assert "takes no new learners now" in response.content.decode()
    assert member.get(klass.join_url()).status_code == 200  # Already in: still their page.
    assert member.post(klass.join_url()).status_code == 302
    assert list(Membership.objects.values_list("learner__username", flat=True)) == ["ada"]


def test_a_removed_learner_may_rejoin_by_an_old_link_while_joining_is_open(teacher, klass):
    learner = make_learner("ada")
    client = signed_in(learner)
    client.post(klass.join_url())
    teacher.post(remove_url(klass, learner))
    assert client.post(klass.join_url()).status_code == 302
    assert Membership.objects.filter(klass=klass, learner=learner).exists()


@pytest.mark.parametrize("token", ["nope", "x" * 10_000, "a%00b"])
def test_an_unknown_link_is_not_found(klass, token):
    learner = signed_in(make_learner("ada"))
    response = learner.get(f"/en/join/{token}/")
    assert response.status_code == 404
    if token == "nope":
        assert "There is no class at this address" in response.content.decode()
    assert learner.post(f"/en/join/{token}/").status_code == 404
    assert not Membership.objects.exists()


def test_a_learner_never_sees_a_roster(klass):
    member = make_learner("ada")
    class_join(klass=klass, learner=member)
    class_join(klass=klass, learner=make_learner("bob"))
    client = signed_in(member)
    assert client.get(detail_url(klass)).status_code == 404
    for page in (client.get(klass.join_url()), client.get("/en/progress/")):
        assert "bob" not in page.content.decode()


# Joining by the code


@pytest.mark.parametrize("typed", ["{code}", "{lower}", " {grouped} ", "{lower_grouped}"])
def test_a_typed_code_leads_to_its_class(klass, typed):
    code = typed.format(
        code=klass.code,
        lower=klass.code.lower(),
        grouped=klass.code_shown,
        lower_grouped=klass.code_shown.lower().replace("-", " - "),
    )
    response = signed_in(make_learner("ada")).post("/en/join/", {"code": code})
    assert response.status_code == 302 and response["Location"] == klass.join_url()


@pytest.mark.parametrize(
    ("code", "status", "message"),
    [
        ("ABCD-2345", 404, "No class has this code"),
        ("ABCD-234", 400, "A class code is eight letters and digits"),
        ("0OIL-1UV2", 400, "A class code is eight letters and digits"),
        ("\ud800BCD2345", 400, "A class code is eight letters and digits"),
        ("a\x00bcdefgh", 400, "The site could not understand this request"),
        ("x" * 10_000, 400, "at most 40 characters"),
        ("", 400, "This field is required."),
    ],
)
def test_a_bad_code_gets_a_clear_4xx(klass, code, status, message):
    response = post_raw(signed_in(make_learner("ada")), "/en/join/", {"code": code})
    assert response.status_code == status
    assert message in response.content.decode()
    assert not Membership.objects.exists()


def test_code_guesses_are_limited_per_account(klass, settings):
    settings.CLASS_CODES_PER_ACCOUNT_PER_HOUR = 3
    guesser = signed_in(make_learner("eve"))
    statuses = [guesser.post("/en/join/", {"code": "ABCD2345"}).status_code for _ in range(4)]
    assert statuses == [404, 404, 404, 429]
    refused = guesser.post("/en/join/", {"code": klass.code})  # The right one, too late.
    assert refused.status_code == 429 and refused.has_header("Retry-After")
    assert "Too many attempts" in refused.content.decode()
    other = signed_in(make_learner("ada"))  # Another account, same address: its own count.
    assert other.post("/en/join/", {"code": klass.code}).status_code == 302


def test_code_guesses_are_limited_per_address(klass, settings):
    settings.CLASS_CODES_PER_ADDRESS_PER_HOUR = 4
    guessers = [signed_in(make_learner(f"eve{n}")) for n in range(3)]
    statuses = [g.post("/en/join/", {"code": "ABCD2345"}).status_code for g in guessers * 2]
    assert statuses == [404, 404, 404, 404, 429, 429]
    elsewhere = signed_in(make_learner("ada"))
    response = elsewhere.post("/en/join/", {"code": klass.code}, REMOTE_ADDR="10.1.2.3")
    assert response.status_code == 302


# In French


def test_the_pages_speak_french_with_its_typography(klass, instructor):
    teacher = signed_in(instructor)
    page = teacher.get(detail_url(klass, "fr")).content.decode()
    assert "Code à lire à voix haute" in page and "Fermer les inscriptions" in page
    learner = signed_in(make_learner("ada"))
    learner.post(klass.join_url(), HTTP_ACCEPT_LANGUAGE="fr")
    joined = learner.post(klass.join_url().replace("/en/", "/fr/"), follow=True)
    assert f"Vous êtes déjà dans {klass.name}." in joined.content.decode()
    assert "Mes classes" in joined.content.decode()
    refused = learner.post("/fr/join/", {"code": "ABCD2345"}).content.decode()
    assert "Aucune classe n’a ce code\u00a0: vérifiez-le auprès de votre formateur." in refused
    class_joining_set(klass=klass, joining_open=False)
    closed = signed_in(make_learner("bob")).get(klass.join_url().replace("/en/", "/fr/"))
    assert f"La classe «\u00a0{klass.name}\u00a0» n’accepte plus" in closed.content.decode()
