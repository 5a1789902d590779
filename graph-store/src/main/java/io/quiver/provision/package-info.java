/**
 * Creating shard databases and their tables on every host, over JDBC on the caller's (worker)
 * thread. A new node or edge type is a {@code CREATE TABLE} on every shard, never an ALTER.
 */
package io.quiver.provision;
