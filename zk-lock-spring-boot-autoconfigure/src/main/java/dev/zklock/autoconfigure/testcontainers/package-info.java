/**
 * Support for Testcontainers ZooKeeper service connections.
 */
package dev.zklock.autoconfigure.testcontainers;
