from django.urls import path

from quizzes.lti import views

# Outside the language prefix: a platform registers one address of each.
urlpatterns = [
    path("lti/jwks/", views.jwks, name="lti_jwks"),
    path("lti/login/", views.oidc_login, name="lti_login"),
    path("lti/launch/", views.launch, name="lti_launch"),
    path("lti/deep-link/", views.deep_link, name="lti_deep_link"),
    path("lti/classes/<int:class_id>/roster/", views.roster_fill, name="lti_roster"),
]
