/**
 * Support for Docker Compose ZooKeeper service connections.
 */
package dev.zklock.autoconfigure.docker.compose;
