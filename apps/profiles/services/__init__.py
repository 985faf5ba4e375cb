"""Writes about profiles and photos: profile.py (the member's own profile), photos.py
(uploads, main photo, deletion), alerts.py (dismissible alerts), blocks.py (block and
unblock) and complaints.py."""
