/**
 * Support for Testcontainers ZooKeeper service connections.
 */
@NullMarked
package dev.zklock.autoconfigure.testcontainers;

import org.jspecify.annotations.NullMarked;
