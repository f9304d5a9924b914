/**
 * Stock levels, changed under per-item locks with fenced writes.
 */
@NullMarked
package dev.zklock.sample.inventory;

import org.jspecify.annotations.NullMarked;
