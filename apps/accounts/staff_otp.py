"""The staff's second factor (django-otp's TOTP devices, public schema).

StaffOTPMiddleware gives `request.user.is_verified()` on the operators' host only: the
devices' table exists in the public schema alone, and members of the sites never have a
second factor here. On a site's host the request passes untouched."""

from __future__ import annotations

from django_otp.middleware import OTPMiddleware

from apps.common.sites import is_public


class StaffOTPMiddleware(OTPMiddleware):
    def __call__(self, request):
        if not is_public(request):
            return self.get_response(request)
        return super().__call__(request)

    async def __acall__(self, request):
        if not is_public(request):
            return await self.get_response(request)
        return await super().__acall__(request)


def staff_is_verified(request) -> bool:
    """Whether the request's staff member passed the second factor in this session."""
    check = getattr(request.user, "is_verified", None)
    return bool(check and check())
