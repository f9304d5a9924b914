package dev.zklock.sample;

import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.core.NestedExceptionUtils;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.http.ProblemDetail;
import org.springframework.http.ResponseEntity;
import org.springframework.http.converter.HttpMessageNotReadableException;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.RestControllerAdvice;

import dev.zklock.LockException;
import dev.zklock.LockTimeoutException;
import dev.zklock.sample.inventory.FencedWriteRejectedException;
import dev.zklock.sample.inventory.InsufficientStockException;
import dev.zklock.sample.inventory.UnknownStockException;
import dev.zklock.sample.orders.OrderStateException;
import dev.zklock.sample.orders.PaymentBusyException;
import dev.zklock.sample.orders.UnknownOrderException;

/**
 * Turns the service's exceptions into problem details with a fitting status.
 */
@RestControllerAdvice
class ApiExceptionHandler {

	private static final Logger logger = LoggerFactory.getLogger(ApiExceptionHandler.class);

	@ExceptionHandler(IllegalArgumentException.class)
	ResponseEntity<ProblemDetail> badRequest(IllegalArgumentException ex) {
		return problem(HttpStatus.BAD_REQUEST, ex.getMessage());
	}

	@ExceptionHandler(HttpMessageNotReadableException.class)
	ResponseEntity<ProblemDetail> unreadable(HttpMessageNotReadableException ex) {
		Throwable cause = NestedExceptionUtils.getMostSpecificCause(ex);
		@Nullable String message = (cause instanceof IllegalArgumentException) ? cause.getMessage()
				: "The request body is not valid JSON for this call: " + cause.getMessage();
		return problem(HttpStatus.BAD_REQUEST, message);
	}

	@ExceptionHandler({ UnknownOrderException.class, UnknownStockException.class })
	ResponseEntity<ProblemDetail> notFound(RuntimeException ex) {
		return problem(HttpStatus.NOT_FOUND, ex.getMessage());
	}

	@ExceptionHandler({ OrderStateException.class, FencedWriteRejectedException.class,
			InsufficientStockException.class })
	ResponseEntity<ProblemDetail> conflict(RuntimeException ex) {
		return problem(HttpStatus.CONFLICT, ex.getMessage());
	}

	@ExceptionHandler({ LockTimeoutException.class, PaymentBusyException.class })
	ResponseEntity<ProblemDetail> busy(RuntimeException ex) {
		return ResponseEntity.status(HttpStatus.SERVICE_UNAVAILABLE)
			.header(HttpHeaders.RETRY_AFTER, "1")
			.body(ProblemDetail.forStatusAndDetail(HttpStatus.SERVICE_UNAVAILABLE, ex.getMessage()));
	}

	@ExceptionHandler(LockException.class)
	ResponseEntity<ProblemDetail> lockFailure(LockException ex) {
		logger.warn("Lock failure: {}", ex.getMessage());
		return problem(HttpStatus.SERVICE_UNAVAILABLE, ex.getMessage());
	}

	private static ResponseEntity<ProblemDetail> problem(HttpStatus status, @Nullable String detail) {
		return ResponseEntity.status(status).body(ProblemDetail.forStatusAndDetail(status, detail));
	}

}
