"""Fake LLM provider servers for offline tests (stdlib HTTP on 127.0.0.1)."""
