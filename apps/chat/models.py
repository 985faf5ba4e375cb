"""Models of this app live in each site schema."""
