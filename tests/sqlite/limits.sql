-- Inputs that once escaped as C++ exceptions or came back enormous: each fails its statement
-- with Cassandra's message, cut where it quotes a long value, and the connection goes on.
.bail off
.headers on
.load ./cassette
CREATE VIRTUAL TABLE t USING cql(k int, v int, n varint, d decimal, PRIMARY KEY (k));
.print '== a DROP timestamp beyond a long (it was "Internal error in cql(): stoll")'
SELECT cql('ALTER TABLE main.t DROP v USING TIMESTAMP 99999999999999999999');
.print '== a 1 MB bad value: the message names it in a hundred characters'
INSERT INTO t (k, v) VALUES (1, printf('%.*c', 1000000, 'x'));
SELECT cql('INSERT INTO main.t (k, v) VALUES (1, ''' || printf('%.*c', 1000000, 'x') || ''')');
SELECT cql('INSERT INTO main.t (k, n) VALUES (1, ' || printf('%.*c', 1000000, '9') || 'x)');
.print '== varint and decimal of 200,000 digits go in and come back exactly'
INSERT INTO t (k, n, d) VALUES (2, printf('-%.*c', 200000, '7'), printf('%.*c.%.*c', 100000, '1', 100000, '3'));
SELECT length(n), n = printf('-%.*c', 200000, '7'), length(d), d = printf('%.*c.%.*c', 100000, '1', 100000, '3') FROM t WHERE k = 2;
SELECT length(cql('SELECT sum(n) FROM main.t'));
.print '== the connection still works'
SELECT k, v FROM t;
