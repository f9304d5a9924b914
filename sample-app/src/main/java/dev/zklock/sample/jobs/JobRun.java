package dev.zklock.sample.jobs;

import java.time.Instant;

/**
 * One run of a scheduled job.
 *
 * @param id the run id
 * @param job the job name
 * @param instance the instance that ran it
 * @param startedAt when it started
 * @param finishedAt when it finished
 * @param affected how many records it changed
 */
public record JobRun(long id, String job, String instance, Instant startedAt, Instant finishedAt, int affected) {

}
