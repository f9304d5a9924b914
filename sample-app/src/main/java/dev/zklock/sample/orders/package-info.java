/**
 * Orders, created and moved through their states under per-order locks.
 */
@NullMarked
package dev.zklock.sample.orders;

import org.jspecify.annotations.NullMarked;
