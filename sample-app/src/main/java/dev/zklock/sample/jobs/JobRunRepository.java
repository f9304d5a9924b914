package dev.zklock.sample.jobs;

import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.List;

import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Repository;

/**
 * Reads and writes the {@code job_runs} table.
 */
@Repository
public class JobRunRepository {

	private final JdbcClient jdbc;

	JobRunRepository(JdbcClient jdbc) {
		this.jdbc = jdbc;
	}

	/**
	 * Record a run.
	 * @param job the job name
	 * @param instance the instance that ran it
	 * @param startedAt when it started
	 * @param finishedAt when it finished
	 * @param affected how many records it changed
	 */
	public void add(String job, String instance, Instant startedAt, Instant finishedAt, int affected) {
		this.jdbc
			.sql("INSERT INTO job_runs (job, instance, started_at, finished_at, affected) VALUES (?, ?, ?, ?, ?)")
			.params(job, instance, startedAt.atOffset(ZoneOffset.UTC), finishedAt.atOffset(ZoneOffset.UTC), affected)
			.update();
	}

	/**
	 * The latest runs of every job.
	 * @param limit the largest number of runs
	 * @return the runs, newest first
	 */
	public List<JobRun> findLatest(int limit) {
		return this.jdbc
			.sql("SELECT id, job, instance, started_at, finished_at, affected FROM job_runs ORDER BY id DESC LIMIT ?")
			.param(limit)
			.query((rs, row) -> new JobRun(rs.getLong("id"), rs.getString("job"), rs.getString("instance"),
					rs.getObject("started_at", OffsetDateTime.class).toInstant(),
					rs.getObject("finished_at", OffsetDateTime.class).toInstant(), rs.getInt("affected")))
			.list();
	}

}
