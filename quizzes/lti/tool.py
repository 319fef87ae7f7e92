"""pylti1p3, told about the site: the registered platforms, the tool's key, and a nonce that
serves once."""

import typing as t
from datetime import timedelta

import requests
from django.utils.timezone import now
from pylti1p3.contrib.django import DjangoMessageLaunch, DjangoOIDCLogin
from pylti1p3.deployment import Deployment
from pylti1p3.exception import LtiException
from pylti1p3.launch_data_storage.base import LaunchDataStorage
from pylti1p3.registration import Registration
from pylti1p3.tool_config.abstract import ToolConfAbstract

from quizzes.lti.models import LoginState, Platform, ToolKey

__all__ = [
    "LtiException",
    "Launch",
    "Login",
    "TimedSession",
    "ToolConf",
    "registration_of",
    "storage",
]


# A platform that hangs (its keys, its token, its gradebook) fails the call after this long.
SERVICE_TIMEOUT = 10  # seconds


class TimedSession(requests.Session):
    def request(self, *args, **kwargs):
        kwargs.setdefault("timeout", SERVICE_TIMEOUT)
        return super().request(*args, **kwargs)


def registration_of(platform: Platform) -> Registration:
    key = ToolKey.objects.current()
    return (
        Registration()
        .set_issuer(platform.issuer)
        .set_client_id(platform.client_id)
        .set_auth_login_url(platform.auth_login_url)
        .set_auth_token_url(platform.token_url)
        .set_key_set_url(platform.keyset_url)
        .set_tool_private_key(key.private_key)
        .set_tool_public_key(key.public_key)
    )


class ToolConf(ToolConfAbstract):
    """The platforms of the admin. An issuer may have several clients (a Moodle site that
    registered the tool twice); a login without client_id is its issuer's only platform's."""

    def __init__(self) -> None:
        super().__init__()
        self.platform: Platform | None = None

    def check_iss_has_one_client(self, iss: str) -> bool:
        return False

    def check_iss_has_many_clients(self, iss: str) -> bool:
        return True

    def find_registration_by_issuer(self, iss: str, *args, **kwargs) -> Registration | None:
        return self.find_registration_by_params(iss, None)

    def find_registration_by_params(
        self, iss: str, client_id: str | None, *args, **kwargs
    ) -> Registration | None:
        platforms = Platform.objects.filter(is_active=True, issuer=iss)
        if client_id is not None:
            platforms = platforms.filter(client_id=client_id)
        found = list(platforms[:2])
        if len(found) != 1:
            return None
        self.platform = found[0]
        return registration_of(self.platform)

    def find_deployment(self, iss: str, deployment_id: str) -> Deployment | None:
        return self.find_deployment_by_params(iss, deployment_id, None)

    def find_deployment_by_params(
        self, iss: str, deployment_id: str, client_id: str | None, *args, **kwargs
    ) -> Deployment | None:
        # Only a deployment the admin lists: an unknown one is refused, and nothing is made.
        if self.platform is None or deployment_id not in self.platform.deployments():
            return None
        return Deployment().set_deployment_id(deployment_id)


class Storage(LaunchDataStorage):
    """The login's state and nonce and the launch's claims, in the database that every web
    process shares (the session cookie does not come back with an LMS's cross-site POST,
    and a per-process cache would lose them between two workers)."""

    def get_session_cookie_name(self) -> None:
        return None

    def can_set_keys_expiration(self) -> bool:
        return True

    def get_value(self, key: str) -> t.Any:
        row = LoginState.objects.filter(key=self._prepare_key(key), expires_at__gt=now()).first()
        return None if row is None else row.value

    def set_value(self, key: str, value: t.Any, exp: int | None = None) -> None:
        LoginState.objects.filter(expires_at__lte=now()).delete()
        LoginState.objects.update_or_create(
            key=self._prepare_key(key),
            defaults={"value": value, "expires_at": now() + timedelta(seconds=exp or 86400)},
        )

    def check_value(self, key: str) -> bool:
        return self.get_value(key) is not None

    def consume(self, key: str) -> bool:
        """Forget a key; whether it was there: of two launches with one nonce, one wins."""
        deleted, _rows = LoginState.objects.filter(
            key=self._prepare_key(key), expires_at__gt=now()
        ).delete()
        return deleted > 0


def storage() -> Storage:
    return Storage()


class Login(DjangoOIDCLogin):
    pass


class Launch(DjangoMessageLaunch):
    """A launch whose id_token must be signed, unexpired, for a registered client and
    deployment, and whose nonce serves once: a replayed id_token is refused."""

    def __init__(self, request, tool_config: ToolConf, **kwargs: t.Any) -> None:
        # from_cache passes launch_data_storage=None: the database's all the same.
        kwargs["launch_data_storage"] = kwargs.get("launch_data_storage") or storage()
        kwargs["requests_session"] = kwargs.get("requests_session") or TimedSession()
        super().__init__(request, tool_config, **kwargs)
        self.set_jwt_verify_options({"verify_aud": False, "require": ["exp", "iat"]})

    def validate(self) -> "Launch":
        super().validate()
        nonce = self._get_jwt_body()["nonce"]
        data_storage = self._session_service.data_storage
        if not data_storage.consume(self._session_service._get_key("nonce", nonce)):
            self._validated = False
            raise LtiException("Nonce already used")
        return self

    @property
    def platform(self) -> Platform:
        platform = self._tool_config.platform
        assert platform is not None, "validated launches have their platform"
        return platform

    def claims(self) -> dict:
        return self.get_launch_data()
