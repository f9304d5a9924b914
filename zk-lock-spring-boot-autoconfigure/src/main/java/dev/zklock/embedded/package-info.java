/**
 * An in-process ZooKeeper server for development.
 */
@NullMarked
package dev.zklock.embedded;

import org.jspecify.annotations.NullMarked;
