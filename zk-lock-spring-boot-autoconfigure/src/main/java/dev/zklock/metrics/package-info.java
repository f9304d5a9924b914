/**
 * Micrometer meters and observations of lock use.
 */
@NullMarked
package dev.zklock.metrics;

import org.jspecify.annotations.NullMarked;
