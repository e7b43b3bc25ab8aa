// Nothing but a comment: there is no module here.
