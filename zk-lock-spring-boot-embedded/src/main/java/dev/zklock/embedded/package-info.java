/**
 * An in-process ZooKeeper server for development, the
 * {@code zk-lock-spring-boot-embedded} artifact: add it with
 * {@code <optional>true</optional>} so that it stays out of production jars.
 */
@NullMarked
package dev.zklock.embedded;

import org.jspecify.annotations.NullMarked;
