/**
 * Support for Docker Compose ZooKeeper service connections.
 */
@NullMarked
package dev.zklock.autoconfigure.docker.compose;

import org.jspecify.annotations.NullMarked;
