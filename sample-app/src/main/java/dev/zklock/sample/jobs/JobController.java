package dev.zklock.sample.jobs;

import java.util.List;

import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

/**
 * Shows which instance ran the scheduled jobs.
 */
@RestController
class JobController {

	private final JobRunRepository runs;

	JobController(JobRunRepository runs) {
		this.runs = runs;
	}

	@GetMapping("/jobs/runs")
	List<JobRun> runs(@RequestParam(defaultValue = "20") int limit) {
		return this.runs.findLatest(Math.max(1, Math.min(limit, 500)));
	}

}
