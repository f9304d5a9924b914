package dev.zklock.sample;

import org.springframework.boot.availability.ApplicationAvailability;
import org.springframework.boot.availability.AvailabilityChangeEvent;
import org.springframework.boot.availability.ReadinessState;
import org.springframework.context.ApplicationEventPublisher;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PutMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

/**
 * Reads and switches this instance's readiness, which Kubernetes reads from
 * {@code /actuator/health/readiness}: {@code PUT /instance/readiness?state=REFUSING_TRAFFIC}
 * takes the instance out, as a rolling deploy or a drain does, and its
 * {@code @Leader} jobs move to another instance; {@code ACCEPTING_TRAFFIC} brings it
 * back, at the back of each role's queue. The sample listens on 127.0.0.1 only; an
 * application would not let a client switch this.
 */
@RestController
class ReadinessController {

	private final ApplicationEventPublisher publisher;

	private final ApplicationAvailability availability;

	ReadinessController(ApplicationEventPublisher publisher, ApplicationAvailability availability) {
		this.publisher = publisher;
		this.availability = availability;
	}

	@GetMapping("/instance/readiness")
	ReadinessState readiness() {
		return this.availability.getReadinessState();
	}

	@PutMapping("/instance/readiness")
	ReadinessState switchReadiness(@RequestParam ReadinessState state) {
		AvailabilityChangeEvent.publish(this.publisher, this, state);
		return this.availability.getReadinessState();
	}

}
