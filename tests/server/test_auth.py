#!/usr/bin/python3
"""Authentication: `cassette serve --auth-file FILE` (PasswordAuthenticator over SASL PLAIN),
`cassette passwd FILE USER`, and the refusal to serve a non-loopback address without it.
Through the DataStax Python driver's PlainTextAuthProvider and through raw frames.

Usage: tests/server/test_auth.py BUILD_DIR
"""
import logging
import os
import signal
import struct
import subprocess
import tempfile
import warnings

warnings.filterwarnings("ignore", category=DeprecationWarning)
import crypt  # noqa: E402  (deprecated in 3.11, here until 3.13; Debian 12 has 3.11)

from cassandra import AuthenticationFailed
from cassandra.auth import PlainTextAuthProvider
from cassandra.cluster import NoHostAvailable

from server_process import Server, run_tests
from test_driver_cluster import cluster
from test_protocol import (ERROR, QUERY, READY, RESULT, STARTUP, connect, frame, query_body,
                           read_error, read_frame, string_map)

AUTHENTICATE, AUTH_RESPONSE, AUTH_SUCCESS = 0x03, 0x0F, 0x10
logging.getLogger("cassandra.cluster").setLevel(logging.CRITICAL)
logging.getLogger("cassandra.connection").setLevel(logging.CRITICAL)


def cassette(build_dir):
    return os.path.join(build_dir, "cassette")


def passwd(build_dir, path, user, password):
    return subprocess.run([cassette(build_dir), "passwd", path, user], input=password + "\n",
                          capture_output=True, text=True, timeout=60)


def users_file(build_dir, directory, users):
    path = os.path.join(directory, "users.txt")
    for user, password in users.items():
        result = passwd(build_dir, path, user, password)
        assert result.returncode == 0, result.stderr
    return path


def auth_cluster(server, user, password):
    c = cluster(server)
    c.auth_provider = PlainTextAuthProvider(username=user, password=password)
    return c


def test_the_driver_connects_with_the_right_password(build_dir):
    with tempfile.TemporaryDirectory() as d:
        users = users_file(build_dir, d, {"alice": "wonderland", "bob": "builder"})
        with Server(build_dir, ":memory:", "--auth-file", users) as server:
            for user, password in (("alice", "wonderland"), ("bob", "builder")):
                c = auth_cluster(server, user, password)
                try:
                    rows = list(c.connect().execute("SELECT release_version FROM system.local"))
                    assert len(rows) == 1, rows
                finally:
                    c.shutdown()


def test_a_wrong_password_or_user_fails_with_cassandras_message(build_dir):
    with tempfile.TemporaryDirectory() as d:
        users = users_file(build_dir, d, {"alice": "wonderland"})
        with Server(build_dir, ":memory:", "--auth-file", users) as server:
            for user, password in (("alice", "wrong"), ("mallory", "wonderland")):
                c = auth_cluster(server, user, password)
                try:
                    c.connect()
                except NoHostAvailable as e:
                    [error] = e.errors.values()
                    assert isinstance(error, AuthenticationFailed), repr(error)
                    expected = f"Provided username {user} and/or password are incorrect"
                    assert expected in str(error), str(error)
                else:
                    raise AssertionError(f"{user}/{password!r} was let in")
                finally:
                    c.shutdown()


def test_without_credentials_the_driver_is_asked_for_them(build_dir):
    with tempfile.TemporaryDirectory() as d:
        users = users_file(build_dir, d, {"alice": "wonderland"})
        with Server(build_dir, ":memory:", "--auth-file", users) as server:
            c = cluster(server)
            try:
                c.connect()
            except NoHostAvailable as e:
                [error] = e.errors.values()
                assert isinstance(error, AuthenticationFailed), repr(error)
                assert "requires authentication" in str(error), str(error)
            else:
                raise AssertionError("connected without credentials")
            finally:
                c.shutdown()


def sasl_plain(user, password, authzid=""):
    token = f"{authzid}\0{user}\0{password}".encode()
    return struct.pack(">i", len(token)) + token


def test_raw_frames_authenticate_then_serve(build_dir):
    with tempfile.TemporaryDirectory() as d:
        users = users_file(build_dir, d, {"alice": "wonderland"})
        with Server(build_dir, ":memory:", "--auth-file", users) as server:
            sock = connect(server)
            sock.sendall(frame(STARTUP, string_map({"CQL_VERSION": "3.0.0"})))
            _, _, _, opcode, body = read_frame(sock)
            assert opcode == AUTHENTICATE, opcode
            name = b"org.apache.cassandra.auth.PasswordAuthenticator"
            assert body == struct.pack(">H", len(name)) + name, body
            # Nothing but AUTH_RESPONSE (and OPTIONS) before the client is authenticated.
            sock.sendall(frame(QUERY, query_body("SELECT * FROM system.local"), stream=3))
            _, _, stream, opcode, body = read_frame(sock)
            assert (stream, opcode) == (3, ERROR), (stream, opcode)
            assert read_error(body) == (0x000A, "Unexpected message QUERY, expecting SASL_RESPONSE")
            # A wrong password: Bad credentials, and the client may try again.
            sock.sendall(frame(AUTH_RESPONSE, sasl_plain("alice", "wrong"), stream=4))
            _, _, stream, opcode, body = read_frame(sock)
            assert (stream, opcode) == (4, ERROR), (stream, opcode)
            assert read_error(body) == (0x0100,
                                        "Provided username alice and/or password are incorrect")
            sock.sendall(frame(AUTH_RESPONSE, sasl_plain("", "wonderland"), stream=5))
            assert read_error(read_frame(sock)[4]) == (0x0100,
                                                       "Authentication ID must not be null")
            for token in (struct.pack(">i", -1), sasl_plain("alice", "")):
                sock.sendall(frame(AUTH_RESPONSE, token, stream=5))
                assert read_error(read_frame(sock)[4]) == (0x0100, "Password must not be null")
            # The authzid is ignored, as Cassandra does.
            sock.sendall(frame(AUTH_RESPONSE, sasl_plain("alice", "wonderland", "root"), stream=6))
            _, _, stream, opcode, body = read_frame(sock)
            assert (stream, opcode, body) == (6, AUTH_SUCCESS, struct.pack(">i", -1)), body
            sock.sendall(frame(QUERY, query_body("SELECT key FROM system.local"), stream=7))
            assert read_frame(sock)[2:4] == (7, RESULT)
            sock.sendall(frame(AUTH_RESPONSE, sasl_plain("alice", "wonderland"), stream=8))
            assert read_error(read_frame(sock)[4]) == (
                0x000A, "Unexpected message AUTH_RESPONSE: the connection is already "
                "authenticated")
            sock.close()


def test_requests_pipelined_behind_a_login_run_after_it_on_many_connections(build_dir):
    # The password is checked on a request thread (bcrypt is slow by design), not on the
    # network thread: the requests a client sends right behind its AUTH_RESPONSE still wait for
    # it, on every connection logging in at once, and a wrong password leaves them refused.
    with tempfile.TemporaryDirectory() as d:
        users = users_file(build_dir, d, {"alice": "wonderland"})
        with Server(build_dir, ":memory:", "--auth-file", users) as server:
            socks = []
            for i in range(8):
                sock = connect(server)
                sock.sendall(frame(STARTUP, string_map({"CQL_VERSION": "3.0.0"})))
                assert read_frame(sock)[3] == AUTHENTICATE
                socks.append(sock)
            for i, sock in enumerate(socks):
                password = "wonderland" if i % 2 == 0 else "wrong"
                sock.sendall(frame(AUTH_RESPONSE, sasl_plain("alice", password), stream=1) +
                             frame(QUERY, query_body("SELECT key FROM system.local"), stream=2))
            for i, sock in enumerate(socks):
                first, second = read_frame(sock), read_frame(sock)
                if i % 2 == 0:
                    assert first[2:4] == (1, AUTH_SUCCESS) and second[2:4] == (2, RESULT), \
                        (first, second)
                else:
                    assert first[2:4] == (1, ERROR) and second[2:4] == (2, ERROR)
                    assert read_error(second[4]) == (
                        0x000A, "Unexpected message QUERY, expecting SASL_RESPONSE")
                sock.close()


def test_without_auth_file_startup_is_answered_ready(build_dir):
    with Server(build_dir, ":memory:") as server:
        sock = connect(server)
        sock.sendall(frame(STARTUP, string_map({"CQL_VERSION": "3.0.0"})))
        assert read_frame(sock)[3] == READY
        sock.close()


def test_passwd_writes_and_replaces_bcrypt_lines(build_dir):
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "users.txt")
        assert passwd(build_dir, path, "alice", "one").returncode == 0
        assert passwd(build_dir, path, "bob", "two").returncode == 0
        assert passwd(build_dir, path, "alice", "three").returncode == 0
        lines = open(path).read().splitlines()
        assert [line.split(":")[0] for line in lines] == ["alice", "bob"], lines
        hashes = dict(line.split(":", 1) for line in lines)
        # Checked by another bcrypt than ours: Python's crypt (the same libxcrypt, but not our
        # code), and the password on argv is nowhere in the file.
        assert hashes["alice"].startswith("$2b$10$"), hashes
        assert crypt.crypt("three", hashes["alice"]) == hashes["alice"]
        assert crypt.crypt("one", hashes["alice"]) != hashes["alice"]
        assert crypt.crypt("two", hashes["bob"]) == hashes["bob"]
        assert oct(os.stat(path).st_mode & 0o777) == "0o600"


def test_passwd_writes_a_file_named_relative_to_the_working_directory(build_dir):
    with tempfile.TemporaryDirectory() as d:
        result = subprocess.run([os.path.abspath(cassette(build_dir)), "passwd", "users.txt",
                                 "alice"], input="x\n", capture_output=True, text=True, cwd=d)
        assert result.returncode == 0, result.stderr
        assert open(os.path.join(d, "users.txt")).read().startswith("alice:$2b$10$")


def test_passwd_refuses_bad_arguments_and_changes_nothing(build_dir):
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "users.txt")
        result = passwd(build_dir, path, "a:b", "x")
        assert result.returncode == 2
        assert "'a:b' cannot be a user name" in result.stderr, result.stderr
        result = passwd(build_dir, path, "alice", "")
        assert result.returncode == 2
        assert "no password on stdin" in result.stderr, result.stderr
        result = subprocess.run([cassette(build_dir), "passwd", path], capture_output=True,
                                text=True, stdin=subprocess.DEVNULL)
        assert result.returncode == 2 and "needs FILE and USER" in result.stderr, result.stderr
        assert not os.path.exists(path)


def test_a_hash_cassandra_stored_is_accepted(build_dir):
    # Cassandra (jBCrypt) stores $2a$ hashes; for an ASCII password $2a$ and $2b$ agree.
    salt = crypt.mksalt(crypt.METHOD_BLOWFISH, rounds=1 << 4)
    hashed = crypt.crypt("cassandra", salt).replace("$2b$", "$2a$", 1)
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "users.txt")
        with open(path, "w") as f:
            f.write(f"# copied from system_auth.roles\ncassandra:{hashed}\n")
        with Server(build_dir, ":memory:", "--auth-file", path) as server:
            c = auth_cluster(server, "cassandra", "cassandra")
            try:
                c.connect()
            finally:
                c.shutdown()


def serve(build_dir, store, *options):
    return subprocess.Popen([cassette(build_dir), "serve", store, *options],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def test_a_malformed_auth_file_is_refused_naming_the_line(build_dir):
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "users.txt")
        with open(path, "w") as f:
            f.write("alice:$2b$10$" + "x" * 53 + "\nbob:plaintext\n")
        store = os.path.join(d, "store")
        process = serve(build_dir, store, "--auth-file", path)
        out, err = process.communicate(timeout=30)
        assert process.returncode == 2, (out, err)
        assert f"{path}:2: expected 'user:hash' with a bcrypt hash" in err, err
        assert not os.path.exists(store)


def test_unmask_permission_in_the_auth_file(build_dir):
    """Column masks (Cassandra 5.0): a user whose line ends with ':unmask' (or ':superuser') has
    Cassandra's UNMASK and reads masked columns in clear; the others read them masked; `cassette
    passwd` keeps a user's permissions when it changes the password; an unknown permission is
    refused naming the line."""
    with tempfile.TemporaryDirectory() as d:
        users = users_file(build_dir, d, {"alice": "wonderland", "bob": "builder",
                                          "root": "toor"})
        lines = open(users).read().splitlines()
        perms = {"alice": ":unmask", "bob": "", "root": ":superuser"}
        with open(users, "w") as f:
            for line in lines:
                f.write(line + perms[line.split(":")[0]] + "\n")
        assert passwd(build_dir, users, "alice", "wonderland").returncode == 0
        assert open(users).read().splitlines()[0].endswith(":unmask"), open(users).read()
        store = os.path.join(d, "store")
        with Server(build_dir, store, "--auth-file", users) as server:
            seen = {}
            for user, password in (("alice", "wonderland"), ("bob", "builder"),
                                   ("root", "toor")):
                c = auth_cluster(server, user, password)
                try:
                    s = c.connect()
                    if user == "alice":
                        s.execute("CREATE KEYSPACE ks WITH replication = "
                                  "{'class': 'SimpleStrategy', 'replication_factor': 1}")
                        s.execute("CREATE TABLE ks.people (id int PRIMARY KEY, "
                                  "name text MASKED WITH mask_inner(1, null))")
                        s.execute("INSERT INTO ks.people (id, name) VALUES (1, 'Ada')")
                    # several requests, so that some run on forks of the connection
                    seen[user] = {tuple(r) for _ in range(8)
                                  for r in s.execute("SELECT id, name FROM ks.people")}
                finally:
                    c.shutdown()
            assert seen == {"alice": {(1, "Ada")}, "bob": {(1, "A**")},
                            "root": {(1, "Ada")}}, seen
        with open(users, "a") as f:
            f.write(lines[1].replace("bob", "eve") + ":unmask,drop\n")
        process = serve(build_dir, os.path.join(d, "other"), "--auth-file", users)
        out, err = process.communicate(timeout=30)
        assert process.returncode == 2, (out, err)
        assert f"{users}:4: unknown permission 'drop'" in err, err


def test_a_non_loopback_address_needs_auth_or_insecure(build_dir):
    with tempfile.TemporaryDirectory() as d:
        store = os.path.join(d, "store")
        process = serve(build_dir, store, "--listen", "0.0.0.0:0")
        out, err = process.communicate(timeout=30)
        assert process.returncode == 2, (out, err)
        assert ("cassette serve: refusing to listen on 0.0.0.0:0 without authentication" in err), err
        assert not os.path.exists(store), "a refused server created its store"
        process = serve(build_dir, store, "--listen", "0.0.0.0:0", "--insecure")
        line = process.stdout.readline()
        assert line.startswith("listening on 0.0.0.0:"), (line, process.stderr.read())
        process.send_signal(signal.SIGTERM)
        assert process.wait(timeout=20) == 0
        users = users_file(build_dir, d, {"alice": "wonderland"})
        process = serve(build_dir, store, "--listen", "0.0.0.0:0", "--auth-file", users)
        line = process.stdout.readline()
        assert line.startswith("listening on 0.0.0.0:"), (line, process.stderr.read())
        process.send_signal(signal.SIGTERM)
        assert process.wait(timeout=20) == 0


if __name__ == "__main__":
    raise SystemExit(run_tests("server-auth", globals()))
