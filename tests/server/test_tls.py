#!/usr/bin/python3
"""TLS: `cassette serve --tls-cert FILE --tls-key FILE` with a throwaway self-signed certificate
made by the openssl command: the DataStax Python driver connects with an ssl_context that
verifies it, a plain client on the TLS port is closed and the server keeps serving.

Usage: tests/server/test_tls.py BUILD_DIR
"""
import logging
import os
import ssl
import subprocess
import tempfile

from cassandra.auth import PlainTextAuthProvider
from cassandra.cluster import NoHostAvailable

from server_process import Server, run_tests
from test_auth import serve, users_file
from test_driver_cluster import cluster
from test_driver_connection import KEYSPACE
from test_protocol import STARTUP, connect, frame, is_closed, string_map

logging.getLogger("cassandra.cluster").setLevel(logging.CRITICAL)
logging.getLogger("cassandra.connection").setLevel(logging.CRITICAL)


def make_certificate(directory):
    cert = os.path.join(directory, "cert.pem")
    key = os.path.join(directory, "key.pem")
    subprocess.run(["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt",
                    "ec_paramgen_curve:prime256v1", "-nodes", "-keyout", key, "-out", cert,
                    "-days", "2", "-subj", "/CN=localhost", "-addext",
                    "subjectAltName=IP:127.0.0.1,DNS:localhost"],
                   check=True, capture_output=True)
    return cert, key


def client_context(cert):
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    context.load_verify_locations(cert)  # verifies the server's certificate and its address
    return context


def tls_cluster(server, cert, **options):
    c = cluster(server)
    c.ssl_context = client_context(cert)
    for name, value in options.items():
        setattr(c, name, value)
    return c


def test_the_driver_connects_over_tls_and_round_trips_rows(build_dir):
    with tempfile.TemporaryDirectory() as d:
        cert, key = make_certificate(d)
        with Server(build_dir, ":memory:", "--tls-cert", cert, "--tls-key", key) as server:
            c = tls_cluster(server, cert)
            try:
                session = c.connect()
                session.execute(KEYSPACE)
                session.execute("CREATE TABLE ks.t (k int PRIMARY KEY, v text)")
                session.execute("INSERT INTO ks.t (k, v) VALUES (1, 'over tls')")
                assert list(session.execute("SELECT k, v FROM ks.t")) == [(1, "over tls")]
                # system_views.clients shows the TLS each connection agreed (the client's own
                # view of its socket: the version and cipher it negotiated).
                sock = c.control_connection._connection._socket
                rows = session.execute("SELECT ssl_enabled, ssl_protocol, ssl_cipher_suite, "
                                       "client_options FROM system_views.clients")
                rows = list(rows)
                assert rows and all(r.ssl_enabled for r in rows), rows
                assert {r.ssl_protocol for r in rows} == {sock.version()}, rows
                assert {r.ssl_cipher_suite for r in rows} == {sock.cipher()[0]}, rows
                setting = session.execute("SELECT value FROM system_views.settings "
                                          "WHERE name = 'client_encryption_options_enabled'")
                assert setting.one().value == "true"
            finally:
                c.shutdown()


def test_tls_and_a_password_together(build_dir):
    with tempfile.TemporaryDirectory() as d:
        cert, key = make_certificate(d)
        users = users_file(build_dir, d, {"alice": "wonderland"})
        with Server(build_dir, ":memory:", "--tls-cert", cert, "--tls-key", key,
                    "--auth-file", users) as server:
            auth = PlainTextAuthProvider(username="alice", password="wonderland")
            c = tls_cluster(server, cert, auth_provider=auth)
            try:
                assert c.connect().execute("SELECT key FROM system.local").one() == ("local",)
            finally:
                c.shutdown()


def test_a_plain_client_on_the_tls_port_is_closed_and_the_server_goes_on(build_dir):
    with tempfile.TemporaryDirectory() as d:
        cert, key = make_certificate(d)
        with Server(build_dir, ":memory:", "--tls-cert", cert, "--tls-key", key) as server:
            sock = connect(server)
            sock.sendall(frame(STARTUP, string_map({"CQL_VERSION": "3.0.0"})))
            assert is_closed(sock)
            sock.close()
            plain = cluster(server)
            try:
                plain.connect()
            except NoHostAvailable:
                pass
            else:
                raise AssertionError("a plain driver connected to the TLS port")
            finally:
                plain.shutdown()
            c = tls_cluster(server, cert)
            try:
                assert c.connect().execute("SELECT key FROM system.local").one() == ("local",)
            finally:
                c.shutdown()


def test_a_missing_or_wrong_certificate_is_refused_naming_the_file(build_dir):
    with tempfile.TemporaryDirectory() as d:
        cert, key = make_certificate(d)
        store = os.path.join(d, "store")
        missing = os.path.join(d, "missing.pem")
        for options, expected in (
                (["--tls-cert", missing, "--tls-key", key], f"--tls-cert {missing}: "),
                (["--tls-cert", cert, "--tls-key", cert], f"--tls-key {cert}: "),
                (["--tls-cert", cert], "--tls-cert and --tls-key go together")):
            process = serve(build_dir, store, *options)
            out, err = process.communicate(timeout=30)
            assert process.returncode == 2, (options, out, err)
            assert f"cassette serve: {expected}" in err, err
        assert not os.path.exists(store), "a refused server created its store"


if __name__ == "__main__":
    raise SystemExit(run_tests("server-tls", globals()))
