/**
 * Real ZooKeeper servers and helpers for integration tests, the {@code zk-lock-test} artifact.
 */
@NullMarked
package dev.zklock.testsupport;

import org.jspecify.annotations.NullMarked;
