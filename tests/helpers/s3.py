"""A real S3-compatible server on 127.0.0.1 (moto's standalone server) for the storage tests."""

from __future__ import annotations

import logging
from collections.abc import Iterator
from contextlib import contextmanager

import pytest


@contextmanager
def moto_s3(*buckets: str) -> Iterator[dict[str, str]]:
    """Start the server, point boto3/s3fs at it (environment variables) and create ``buckets``;
    yields the variables, for processes started apart (Ray workers, ``inspect eval``)."""
    from moto.server import ThreadedMotoServer

    logging.getLogger("werkzeug").setLevel(logging.ERROR)
    server = ThreadedMotoServer(ip_address="127.0.0.1", port=0, verbose=False)
    server.start()
    host, port = server.get_host_and_port()
    env = {
        "AWS_ACCESS_KEY_ID": "testing", "AWS_SECRET_ACCESS_KEY": "testing", "AWS_DEFAULT_REGION": "us-east-1",
        "AWS_ENDPOINT_URL": f"http://{host}:{port}",
    }  # fmt: skip
    with pytest.MonkeyPatch.context() as patch:
        for key, value in env.items():
            patch.setenv(key, value)
        import boto3

        client = boto3.client("s3")
        for bucket in buckets:
            client.create_bucket(Bucket=bucket)
        try:
            yield env
        finally:
            server.stop()
