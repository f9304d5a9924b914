/**
 * Scheduled jobs that run on one instance at a time.
 */
@NullMarked
package dev.zklock.sample.jobs;

import org.jspecify.annotations.NullMarked;
